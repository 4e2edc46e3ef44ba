// Command presets writes every list of presets that other files keep from the one catalogue,
// targets/*/target.yaml (read by internal/preset): the API's enum of Target.preset, the chart's
// presetImages and the schema that accepts them, docker-bake.hcl's preset group and targets, and
// the lab's image recipes (hack/lab/images.sh). make generate runs it; make verify-generated
// fails when its output differs from what is committed. With -check it writes nothing and names
// each file, list and missing or extra preset instead.
//
// Usage: go run ./hack/presets [-root DIR] [-check]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

func main() {
	root := flag.String("root", ".", "the repository's root")
	check := flag.Bool("check", false, "write nothing; fail naming each list that differs from the catalogue")
	flag.Parse()
	presets, err := preset.LoadAll(filepath.Join(*root, "targets"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "presets:", err)
		os.Exit(2)
	}
	if *check {
		problems, err := Check(*root, presets)
		if err != nil {
			fmt.Fprintln(os.Stderr, "presets:", err)
			os.Exit(2)
		}
		for _, p := range problems {
			fmt.Println(p)
		}
		if len(problems) > 0 {
			fmt.Fprintf(os.Stderr, "presets: %d lists differ from targets/*/target.yaml: run make generate\n", len(problems))
			os.Exit(1)
		}
		return
	}
	changed, err := Write(*root, presets)
	if err != nil {
		fmt.Fprintln(os.Stderr, "presets:", err)
		os.Exit(2)
	}
	for _, f := range changed {
		fmt.Println("presets: wrote", f)
	}
}
