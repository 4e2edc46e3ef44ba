// Command testdigest reads `go test -json` on stdin, prints the test output as `go test -v`
// would, and ends with a digest: each failed test and the lines it logged. The long tiers
// (local, lab) print thousands of lines; whoever reads only the tail of a failed run (a CI
// summary) then still sees which assertion failed and why.
//
// It exits 1 when a test or a package failed, or when the stream ended without a package's
// verdict (a build that failed, a run that was killed), so it can end a pipe without pipefail.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

// event is the part of test2json's TestEvent that the digest reads.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// maxLines bounds one test's lines in the digest: a failed test that logged its whole
// progress shows the end of it, where the failure is.
const maxLines = 40

// assertion matches the line a t.Error or t.Log call starts with: "    name_test.go:123: ".
var assertion = regexp.MustCompile(`^\s+\S+_test\.go:\d+: `)

func main() {
	brief := flag.Bool("brief", false, "print only the packages' own lines and the digest, as go test without -v")
	flag.Parse()
	failed, err := digest(os.Stdin, os.Stdout, *brief)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testdigest:", err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}

// digest copies the output and returns whether anything failed or never finished.
func digest(in io.Reader, out io.Writer, brief bool) (bool, error) {
	logs := map[string][]string{} // "package test" -> its output lines
	var failures []string         // "package test", in the order they failed
	open := map[string]bool{}     // packages started without a verdict yet
	bad := false
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(out, sc.Text()) // not an event: go vet's or the build's own text
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "start":
			open[e.Package] = true
		case "output", "build-output":
			if !brief || e.Test == "" {
				fmt.Fprint(out, e.Output)
			}
			if !isFrame(e.Output) {
				logs[key] = append(logs[key], strings.TrimRight(e.Output, "\n"))
			}
		case "fail", "build-fail":
			bad = true
			if e.Test != "" {
				failures = append(failures, key)
				continue
			}
			delete(open, e.Package)
			if !slices.ContainsFunc(failures, func(k string) bool { return strings.HasPrefix(k, e.Package+" ") }) {
				failures = append(failures, key) // a panic, a timeout, a build: the package's own lines
			}
		case "pass", "skip":
			if e.Test == "" {
				delete(open, e.Package)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	for p := range open {
		bad = true
		logs[p+" (no verdict: killed or timed out)"] = logs[p+" "]
		failures = append(failures, p+" (no verdict: killed or timed out)")
	}
	if len(failures) > 0 {
		fmt.Fprintf(out, "\n=== digest: %d failed\n", len(failures))
		for _, f := range failures {
			lines := logs[f]
			fmt.Fprintf(out, "--- %s\n", f)
			if len(lines) > maxLines {
				// The assertions first (t.Error's "file_test.go:N:" lines, wherever they
				// are), then the end of the rest, where the failure happened.
				var asserts []string
				for _, l := range lines[:len(lines)-maxLines] {
					if assertion.MatchString(l) && len(asserts) < maxLines {
						asserts = append(asserts, l)
					}
				}
				fmt.Fprintf(out, "    (%d earlier lines, %d of them assertions, shown first)\n", len(lines)-maxLines, len(asserts))
				lines = append(asserts, lines[len(lines)-maxLines:]...)
			}
			for _, l := range lines {
				fmt.Fprintln(out, l)
			}
		}
	}
	return bad, nil
}

// isFrame reports go test's own framing lines (=== RUN, --- PASS, ...), which the digest
// leaves out: the failure's header already names the test.
func isFrame(line string) bool {
	t := strings.TrimLeft(line, " ")
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- PASS", "--- FAIL", "--- SKIP"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}
