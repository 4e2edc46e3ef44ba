// Command importcheck fails when the two modes link each other: the local mode
// (internal/local and the packages only it uses) must import nothing of the operator
// (controllers, internal/specs, internal/metrics, the operators' API modules), and the
// manager nothing of the local mode. depguard sees direct imports only; this reads every
// package's imports from one `go list -deps` and prints the chain that brings each forbidden
// package in. make lint runs it.
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
)

func main() {
	vs, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "importcheck:", err)
		os.Exit(2)
	}
	for _, v := range vs {
		fmt.Println(v)
	}
	if len(vs) > 0 {
		fmt.Fprintf(os.Stderr, "importcheck: %d forbidden imports (hack/importcheck/check.go says why)\n", len(vs))
		os.Exit(1)
	}
}

func run() ([]Violation, error) {
	cmd := exec.Command("go", append([]string{"list", "-deps", "-f", listFormat}, roots(Rules)...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	g, err := ReadGraph(bytes.NewReader(out))
	if err != nil {
		return nil, err
	}
	return Check(g, Rules)
}
