package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

// A list is one place, inside one file, that names presets.
type list struct {
	file string // repository-relative, slash-separated
	name string // the list, as messages name it
	// held reads the presets the list names now.
	held func(src []byte) ([]string, error)
	// want is the presets the list must name.
	want func(presets []*preset.Preset) []string
	// render returns src with the list written from the catalogue.
	render func(src []byte, presets []*preset.Preset) ([]byte, error)
}

// Files in the order lists are listed; the lab's images last (it refers to nothing else).
const (
	apiFile    = "api/v1alpha1/target_types.go"
	valuesFile = "charts/gauntlet/values.yaml"
	schemaFile = "charts/gauntlet/values.schema.json"
	bakeFile   = "docker-bake.hcl"
	labFile    = "hack/lab/images.sh"
)

var lists = []list{
	{file: apiFile, name: "Target.Preset's +kubebuilder:validation:Enum", held: enumHeld, want: allNames, render: enumRender},
	{file: valuesFile, name: "presetImages", held: valuesHeld, want: allNames, render: valuesRender},
	{file: schemaFile, name: "properties.presetImages.properties", held: schemaHeld, want: allNames, render: schemaRender},
	{file: bakeFile, name: `group "presets"`, held: bakeGroupHeld, want: allNames, render: bakeGroupRender},
	{file: bakeFile, name: "preset targets", held: bakeTargetsHeld, want: allNames, render: bakeTargetsRender},
	{file: labFile, name: "img_<preset> recipes", held: labHeld, want: labWant, render: labRender},
}

// Check compares every list under root with the catalogue and returns one line per list that
// differs: the file, the list and the missing or extra presets, or "out of date" when it names
// the right presets with other values (an image). It writes nothing.
func Check(root string, presets []*preset.Preset) ([]string, error) {
	var problems []string
	for _, l := range lists {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(l.file)))
		if err != nil {
			return nil, err
		}
		held, err := l.held(src)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %s: %v", l.file, l.name, err))
			continue
		}
		missing, extra := diff(l.want(presets), held)
		if len(missing) > 0 || len(extra) > 0 {
			var parts []string
			if len(missing) > 0 {
				parts = append(parts, "missing "+strings.Join(missing, ", "))
			}
			if len(extra) > 0 {
				parts = append(parts, "extra "+strings.Join(extra, ", "))
			}
			problems = append(problems, fmt.Sprintf("%s: %s: %s (targets/*/target.yaml is the catalogue)", l.file, l.name, strings.Join(parts, "; ")))
			continue
		}
		out, err := l.render(src, presets)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %s: %v", l.file, l.name, err))
		case !bytes.Equal(out, src):
			problems = append(problems, fmt.Sprintf("%s: %s: out of date with targets/*/target.yaml", l.file, l.name))
		}
	}
	return problems, nil
}

// Write writes every list under root from the catalogue and returns the files it changed.
// Nothing is written when any list cannot be: the error names each one.
func Write(root string, presets []*preset.Preset) ([]string, error) {
	var order []string
	out := map[string][]byte{}
	orig := map[string][]byte{}
	var errs []error
	for _, l := range lists {
		if _, ok := out[l.file]; !ok {
			src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(l.file)))
			if err != nil {
				return nil, err
			}
			order = append(order, l.file)
			out[l.file], orig[l.file] = src, src
		}
		next, err := l.render(out[l.file], presets)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %w", l.file, l.name, err))
			continue
		}
		out[l.file] = next
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var changed []string
	for _, f := range order {
		if bytes.Equal(out[f], orig[f]) {
			continue
		}
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(f)), out[f], 0o644); err != nil {
			return nil, err
		}
		changed = append(changed, f)
	}
	return changed, nil
}

func allNames(presets []*preset.Preset) []string {
	out := make([]string, len(presets))
	for i, p := range presets {
		out[i] = p.Name
	}
	return out
}

// diff is what want has that held lacks, and what held has beyond want, each sorted.
func diff(want, held []string) (missing, extra []string) {
	for _, w := range want {
		if !slices.Contains(held, w) {
			missing = append(missing, w)
		}
	}
	for _, h := range held {
		if !slices.Contains(want, h) {
			extra = append(extra, h)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	return missing, extra
}

// --- marker regions: the lines between "# BEGIN GENERATED <id>..." and "# END GENERATED <id>" ---

const generatedBy = "make generate writes these lines from targets/*/target.yaml (hack/presets)"

// region finds the lines strictly between a file's two marker lines for id: body is
// src[start:end], indent the begin line's indentation.
func region(src []byte, id string) (start, end int, indent string, err error) {
	begin := regexp.MustCompile(`(?m)^([ \t]*)# BEGIN GENERATED ` + regexp.QuoteMeta(id) + `(:.*)?\n`)
	stop := regexp.MustCompile(`(?m)^[ \t]*# END GENERATED ` + regexp.QuoteMeta(id) + `[ \t]*$`)
	b := begin.FindAllSubmatchIndex(src, -1)
	e := stop.FindAllIndex(src, -1)
	if len(b) != 1 || len(e) != 1 || e[0][0] < b[0][1] {
		return 0, 0, "", fmt.Errorf(`want one line "# BEGIN GENERATED %s: %s" and, after it, one "# END GENERATED %s" (found %d and %d)`, id, generatedBy, id, len(b), len(e))
	}
	return b[0][1], e[0][0], string(src[b[0][2]:b[0][3]]), nil
}

// regionLines are the region's lines, trimmed, without blank and comment lines.
func regionLines(src []byte, id string) ([]string, error) {
	start, end, _, err := region(src, id)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(string(src[start:end]), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out, nil
}

// replaceRegion writes lines (each already indented) between the markers.
func replaceRegion(src []byte, id string, lines []string) ([]byte, error) {
	start, end, _, err := region(src, id)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(src[:start])
	for _, l := range lines {
		if l != "" {
			b.WriteString(l)
		}
		b.WriteByte('\n')
	}
	b.Write(src[end:])
	return b.Bytes(), nil
}
