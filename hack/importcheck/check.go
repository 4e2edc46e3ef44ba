package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// module is the import path prefix of the repository's packages; rules and messages
// name packages relative to it.
const module = "github.com/gauntlet-bench/gauntlet/"

// localOnly are the packages of the local mode alone: the manager must link none of them,
// and nothing they import may be the operator's. internal/wire is not among them: the
// operator's node agent (internal/wireagent) captures with it too.
var localOnly = []string{
	"internal/local", "internal/localdb", "internal/supervise", "internal/cgroups",
	"internal/cpuset", "internal/loopback", "internal/k6",
}

// Rule forbids some packages in the transitive imports of others.
type Rule struct {
	// Name says which direction is broken, in the failure message.
	Name string
	// Roots are the packages whose imports are checked, relative to module.
	Roots []string
	// Forbidden are patterns, relative to module unless they hold a dot in their first
	// element (github.com/cloudnative-pg/...); "p/..." is p and everything under it.
	Forbidden []string
}

// Rules are the two directions: `gauntlet run --local` needs no operator (whose object
// builders drag in CloudNativePG's and prometheus-operator's API modules), and the manager
// image needs no process supervisor, cgroups or k6 runner.
var Rules = []Rule{
	{
		Name:  "the local mode links the operator",
		Roots: localOnly,
		Forbidden: []string{"controllers/...", "internal/specs", "internal/metrics",
			"github.com/cloudnative-pg/...", "github.com/prometheus-operator/..."},
	},
	{
		Name:      "the manager links the local mode",
		Roots:     []string{"cmd/manager"},
		Forbidden: localOnly,
	},
}

// Graph is each package's direct imports, as `go list -deps -f` prints them (listFormat).
type Graph map[string][]string

// listFormat makes `go list -deps` print one package per line: its path, then its imports.
const listFormat = "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}"

// ReadGraph reads go list's listFormat lines.
func ReadGraph(r io.Reader) (Graph, error) {
	g := Graph{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		g[f[0]] = f[1:]
	}
	return g, sc.Err()
}

// Violation is a forbidden package some root reaches, by the shortest chain of imports.
type Violation struct {
	Rule    string
	Package string
	// Chain runs from the root to Package, each importing the next.
	Chain []string
}

func (v Violation) String() string {
	names := make([]string, len(v.Chain))
	for i, p := range v.Chain {
		names[i] = strings.TrimPrefix(p, module)
	}
	return fmt.Sprintf("%s: %s is imported: %s", v.Rule, names[len(names)-1], strings.Join(names, " → "))
}

// Check walks each rule's roots breadth first, so a chain is the shortest one. It stops at
// a forbidden package: what that one imports is its own business, and one message per
// entry point says where to cut.
func Check(g Graph, rules []Rule) ([]Violation, error) {
	var out []Violation
	for _, r := range rules {
		parent := map[string]string{}
		var queue []string
		for _, root := range r.Roots {
			p := module + root
			if _, ok := g[p]; !ok {
				return nil, fmt.Errorf("rule %q: go list did not list its root %s", r.Name, p)
			}
			if _, seen := parent[p]; !seen {
				parent[p] = ""
				queue = append(queue, p)
			}
		}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			if matches(r.Forbidden, p) {
				out = append(out, Violation{Rule: r.Name, Package: p, Chain: chain(parent, p)})
				continue
			}
			for _, q := range g[p] {
				if _, seen := parent[q]; !seen {
					parent[q] = p
					queue = append(queue, q)
				}
			}
		}
	}
	return out, nil
}

func chain(parent map[string]string, p string) []string {
	var c []string
	for ; p != ""; p = parent[p] {
		c = append([]string{p}, c...)
	}
	return c
}

func matches(patterns []string, pkg string) bool {
	for _, pat := range patterns {
		if first, _, _ := strings.Cut(pat, "/"); !strings.Contains(first, ".") {
			pat = module + pat
		}
		if base, ok := strings.CutSuffix(pat, "/..."); ok {
			if pkg == base || strings.HasPrefix(pkg, base+"/") {
				return true
			}
		} else if pkg == pat {
			return true
		}
	}
	return false
}

// roots are every rule's roots, for go list.
func roots(rules []Rule) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rules {
		for _, root := range r.Roots {
			if !seen[root] {
				seen[root] = true
				out = append(out, "./"+root)
			}
		}
	}
	return out
}
