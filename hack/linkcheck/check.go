package main

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// Problem is one reference that resolves to nothing.
type Problem struct {
	File   string // the referring file, relative to the root
	Line   int
	Target string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s does not exist", p.File, p.Line, p.Target)
}

var (
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpan = regexp.MustCompile("`([^`]+)`")
	mdName   = regexp.MustCompile(`(?:^|[\s("'` + "`" + `])((?:\.{0,2}/)?[\w./-]*[\w-]\.md)\b`)
)

// Check reads files (slash-separated, relative to root) and returns every reference to a
// path under root that does not exist. Markdown: relative links, and code spans' words that
// start with one of the repository's top-level entries (the first components of files).
// Go and shell files and the Makefile: *.md names in their comments.
func Check(root string, files []string) ([]Problem, error) {
	top := map[string]bool{}
	for _, f := range files {
		top[strings.SplitN(f, "/", 2)[0]] = true
	}
	var problems []Problem
	for _, f := range files {
		var check func(line string) []string
		switch {
		case strings.HasSuffix(f, ".md"):
			check = func(line string) []string { return markdownRefs(f, line, top) }
		case strings.HasSuffix(f, ".go"), strings.HasSuffix(f, ".sh"), path.Base(f) == "Makefile":
			marker := "#"
			if strings.HasSuffix(f, ".go") {
				marker = "//"
			}
			check = func(line string) []string { return mdNames(root, f, comment(line, marker)) }
		default:
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		fenced := false
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				fenced = !fenced
				continue
			}
			if fenced {
				continue
			}
			for _, target := range check(line) {
				if !exists(root, target) {
					problems = append(problems, Problem{File: f, Line: i + 1, Target: target})
				}
			}
		}
	}
	return problems, nil
}

// markdownRefs returns the repository paths a Markdown line refers to, relative to the root.
func markdownRefs(file, line string, top map[string]bool) []string {
	var refs []string
	for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
			continue
		}
		target, _, _ = strings.Cut(target, "#")
		refs = append(refs, path.Join(path.Dir(file), target))
	}
	for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
		for _, word := range strings.Fields(m[1]) {
			word = strings.TrimPrefix(strings.TrimRight(word, ",;:)."), "./")
			if word == "" || strings.ContainsAny(word, "<>*{}$…[]=|") || strings.Contains(word, "...") {
				continue
			}
			// internal/sizing.CostMicros: the package, not its identifier.
			if i := strings.LastIndex(word, "/"); i >= 0 {
				if j := strings.Index(word[i:], "."); j > 0 && i+j+1 < len(word) && 'A' <= word[i+j+1] && word[i+j+1] <= 'Z' {
					word = word[:i+j]
				}
			}
			first := strings.SplitN(word, "/", 2)[0]
			if top[first] && (strings.Contains(word, "/") || strings.Contains(first, ".")) {
				refs = append(refs, path.Clean(word))
			}
		}
	}
	return refs
}

// comment returns the comment of a line: after marker at its start or after a space.
func comment(line, marker string) string {
	if t := strings.TrimSpace(line); strings.HasPrefix(t, marker) {
		return t
	}
	if _, after, ok := strings.Cut(line, " "+marker+" "); ok {
		return after
	}
	return ""
}

// mdNames returns the *.md files a Go or shell line names that exist neither relative to the
// file's own folder (returned relative to the root, to be checked there) nor to the root.
func mdNames(root, file, line string) []string {
	var refs []string
	for _, m := range mdName.FindAllStringSubmatch(line, -1) {
		name := m[1]
		if strings.Contains(line, "://") {
			continue // a URL's file, not this repository's
		}
		if exists(root, path.Join(path.Dir(file), name)) {
			continue
		}
		refs = append(refs, path.Clean(name))
	}
	return refs
}

func exists(root, p string) bool {
	_, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
	return err == nil
}
