// Command linkcheck fails when a document points at something the repository does not hold:
// a relative Markdown link, a repository path quoted as code in a Markdown file (`hack/k6.sh`,
// `go run ./hack/fidelity`), or a *.md file named in a Go or shell comment. make lint runs it
// over every tracked file (git ls-files).
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

func main() {
	out, err := exec.Command("git", "ls-files").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "linkcheck: git ls-files:", err)
		os.Exit(2)
	}
	problems, err := Check(".", strings.Fields(string(out)))
	if err != nil {
		fmt.Fprintln(os.Stderr, "linkcheck:", err)
		os.Exit(2)
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "linkcheck: %d references to nothing\n", len(problems))
		os.Exit(1)
	}
}
