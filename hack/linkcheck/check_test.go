package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func write(t *testing.T, root, name, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A tree with one good and one broken reference of each kind: only the broken ones come back.
func TestCheckFindsBrokenReferences(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"README.md": "See [the lab](docs/lab.md#isolation), [gone](docs/gone.md), [site](https://example.com/x.md).\n" +
			"Run `hack/k6.sh` (`internal/x.Missing`) and `go run ./hack/missing -x`; `results/<run>/` is made by a run.\n" +
			"```sh\nhack/not-checked-in-a-fence.sh\n```\n",
		"docs/lab.md":     "Back to [the README](../README.md), on to [nothing](nothing.md).\n",
		"hack/k6.sh":      "# installs k6 (docs/lab.md; see NOTES.md)\n",
		"internal/x/x.go": "// x follows ../../docs/lab.md and https://example.com/CHANGES.md\npackage x\n\nvar out = dir + \"/out.md\" // code, not a comment\n",
	}
	var names []string
	for name, text := range files {
		write(t, root, name, text)
		names = append(names, name)
	}
	problems, err := Check(root, names)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		"README.md:1: docs/gone.md does not exist",
		"README.md:2: hack/missing does not exist",
		"docs/lab.md:1: docs/nothing.md does not exist",
		"hack/k6.sh:1: NOTES.md does not exist",
	}
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The repository itself: every tracked document's references resolve (make lint runs the
// same check as a command).
func TestRepositoryReferencesResolve(t *testing.T) {
	root := filepath.Join("..", "..") // go test runs in hack/linkcheck
	cmd := exec.Command("git", "ls-files")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	problems, err := Check(root, strings.Fields(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}
