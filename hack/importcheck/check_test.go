package main

import (
	"reflect"
	"strings"
	"testing"
)

// fakeList is what `go list -deps -f listFormat` prints for a tree where the local mode
// reaches internal/specs through a shared package, and specs brings in CloudNativePG.
func fakeList(lines ...string) Graph {
	text := strings.ReplaceAll(strings.Join(lines, "\n"), "M/", module)
	g, err := ReadGraph(strings.NewReader(text + "\n"))
	if err != nil {
		panic(err)
	}
	return g
}

var localRule = Rule{Name: "local links operator", Roots: []string{"internal/local"},
	Forbidden: []string{"controllers/...", "internal/specs", "github.com/cloudnative-pg/..."}}

func TestCheckNamesTheForbiddenPackageAndWhoImportsIt(t *testing.T) {
	g := fakeList(
		"fmt",
		"github.com/cloudnative-pg/api/pkg/api/v1 fmt",
		"M/internal/specs fmt github.com/cloudnative-pg/api/pkg/api/v1",
		"M/internal/sizing fmt M/internal/specs",
		"M/internal/plan fmt",
		"M/internal/local fmt M/internal/plan M/internal/sizing",
	)
	vs, err := Check(g, []Rule{localRule})
	if err != nil {
		t.Fatal(err)
	}
	// One violation: specs, where to cut; not CloudNativePG behind it.
	want := []Violation{{Rule: "local links operator", Package: module + "internal/specs",
		Chain: []string{module + "internal/local", module + "internal/sizing", module + "internal/specs"}}}
	if !reflect.DeepEqual(vs, want) {
		t.Fatalf("violations %+v, want %+v", vs, want)
	}
	msg := vs[0].String()
	if wantMsg := "local links operator: internal/specs is imported: internal/local → internal/sizing → internal/specs"; msg != wantMsg {
		t.Errorf("message %q, want %q", msg, wantMsg)
	}
}

func TestCheckPassesACleanGraph(t *testing.T) {
	g := fakeList(
		"fmt",
		"M/internal/specs fmt", // in the graph, but nothing of the local mode imports it
		"M/controllersx fmt",   // a prefix of controllers/..., not under it
		"M/controllers/schedule M/internal/specs",
		"M/internal/local fmt M/controllersx",
	)
	if vs, err := Check(g, []Rule{localRule}); err != nil || len(vs) != 0 {
		t.Fatalf("violations %v (%v), want none", vs, err)
	}
}

func TestCheckMatchesSubpackagesAndModules(t *testing.T) {
	g := fakeList(
		"github.com/cloudnative-pg/machinery/pkg/api",
		"M/controllers/schedule",
		"M/internal/local M/controllers/schedule github.com/cloudnative-pg/machinery/pkg/api",
	)
	vs, err := Check(g, []Rule{localRule})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, strings.TrimPrefix(v.Package, module))
	}
	if want := []string{"controllers/schedule", "github.com/cloudnative-pg/machinery/pkg/api"}; !reflect.DeepEqual(got, want) {
		t.Errorf("forbidden %v, want %v", got, want)
	}
}

// The real rules: the manager reaching internal/supervise (through a package both use)
// fails, named with its chain.
func TestRulesForbidTheLocalModeInTheManager(t *testing.T) {
	var lines []string
	for _, r := range Rules {
		for _, root := range r.Roots {
			lines = append(lines, "M/"+root)
		}
	}
	// Later lines replace earlier ones: the manager's own imports.
	lines = append(lines, "M/cmd/manager M/internal/shared", "M/internal/shared M/internal/supervise")
	vs, err := Check(fakeList(lines...), Rules)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].String() != "the manager links the local mode: internal/supervise is imported: cmd/manager → internal/shared → internal/supervise" {
		t.Fatalf("violations %v", vs)
	}
}

// A root go list did not print (a package renamed, the rule left behind) is an error, not a
// pass.
func TestCheckRefusesAMissingRoot(t *testing.T) {
	if _, err := Check(fakeList("fmt"), []Rule{localRule}); err == nil || !strings.Contains(err.Error(), "internal/local") {
		t.Fatalf("error %v", err)
	}
}
