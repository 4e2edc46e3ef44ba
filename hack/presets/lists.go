package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

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

// --- api/v1alpha1/target_types.go: the enum marker of Target.Preset ---

const enumMarker = "// +kubebuilder:validation:Enum="

// enumComment is the offsets of the Enum marker in Target.Preset's doc comment.
func enumComment(src []byte) (start, end int, err error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, apiFile, src, parser.ParseComments)
	if err != nil {
		return 0, 0, err
	}
	var found *ast.Comment
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "Target" {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return false
		}
		for _, field := range st.Fields.List {
			if len(field.Names) != 1 || field.Names[0].Name != "Preset" || field.Doc == nil {
				continue
			}
			for _, c := range field.Doc.List {
				if strings.HasPrefix(c.Text, enumMarker) {
					found = c
				}
			}
		}
		return false
	})
	if found == nil {
		return 0, 0, fmt.Errorf("no %q line in the doc comment of type Target's field Preset", enumMarker)
	}
	return fset.Position(found.Pos()).Offset, fset.Position(found.End()).Offset, nil
}

func enumHeld(src []byte) ([]string, error) {
	start, end, err := enumComment(src)
	if err != nil {
		return nil, err
	}
	values := strings.TrimPrefix(string(src[start:end]), enumMarker)
	if values == "" {
		return nil, nil
	}
	return strings.Split(values, ";"), nil
}

func enumRender(src []byte, presets []*preset.Preset) ([]byte, error) {
	start, end, err := enumComment(src)
	if err != nil {
		return nil, err
	}
	line := enumMarker + strings.Join(allNames(presets), ";")
	return slices.Concat(src[:start], []byte(line), src[end:]), nil
}

// --- charts/gauntlet/values.yaml: presetImages ---

const valuesRegion = "presetImages"

func valuesHeld(src []byte) ([]string, error) {
	lines, err := regionLines(src, valuesRegion)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range lines {
		name, _, ok := strings.Cut(l, ":")
		if !ok {
			return nil, fmt.Errorf("line %q is not preset: image", l)
		}
		out = append(out, strings.TrimSpace(name))
	}
	return out, nil
}

// plainScalar is an image reference YAML reads as the same string without quotes.
var plainScalar = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/@-]*(:[A-Za-z0-9._/@-]+)*$`)

func valuesRender(src []byte, presets []*preset.Preset) ([]byte, error) {
	_, _, indent, err := region(src, valuesRegion)
	if err != nil {
		return nil, err
	}
	lines := make([]string, len(presets))
	for i, p := range presets {
		image := p.Image
		if !plainScalar.MatchString(image) {
			image = strconv.Quote(image) // a JSON string, which YAML reads as written
		}
		lines[i] = indent + p.Name + ": " + image
	}
	return replaceRegion(src, valuesRegion, lines)
}

// --- charts/gauntlet/values.schema.json: properties.presetImages.properties ---

var schemaPath = []string{"properties", "presetImages", "properties"}

// jsonSpan is the offsets of the value at path (object keys from the top) in a JSON document.
func jsonSpan(src []byte, path []string) (start, end int, err error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	for _, key := range path {
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return 0, 0, fmt.Errorf("%s: the value holding %q is not an object", strings.Join(path, "."), key)
		}
		found := false
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return 0, 0, err
			}
			if t == key {
				found = true
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return 0, 0, err
			}
		}
		if !found {
			return 0, 0, fmt.Errorf("no key %q on the path %s", key, strings.Join(path, "."))
		}
	}
	before := int(dec.InputOffset())
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return 0, 0, err
	}
	end = int(dec.InputOffset())
	start = before + bytes.IndexFunc(src[before:], func(r rune) bool { return !strings.ContainsRune(" \t\r\n:", r) })
	return start, end, nil
}

func schemaHeld(src []byte) ([]string, error) {
	start, end, err := jsonSpan(src, schemaPath)
	if err != nil {
		return nil, err
	}
	var props map[string]json.RawMessage
	if err := json.Unmarshal(src[start:end], &props); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(props))
	for k := range props {
		out = append(out, k)
	}
	slices.Sort(out)
	return out, nil
}

// schemaRender writes one property per preset, each a non-empty string, indented as the line
// that holds the object (two spaces a level, as the file is written).
func schemaRender(src []byte, presets []*preset.Preset) ([]byte, error) {
	start, end, err := jsonSpan(src, schemaPath)
	if err != nil {
		return nil, err
	}
	lineStart := bytes.LastIndexByte(src[:start], '\n') + 1
	indent := string(src[lineStart : lineStart+len(src[lineStart:start])-len(bytes.TrimLeft(src[lineStart:start], " \t"))])
	var b strings.Builder
	b.WriteString("{")
	for i, p := range presets {
		if i > 0 {
			b.WriteString(",")
		}
		name, _ := json.Marshal(p.Name)
		fmt.Fprintf(&b, "\n%s  %s: {\n%s    \"type\": \"string\",\n%s    \"minLength\": 1\n%s  }", indent, name, indent, indent, indent)
	}
	if len(presets) > 0 {
		b.WriteString("\n" + indent)
	}
	b.WriteString("}")
	return slices.Concat(src[:start], []byte(b.String()), src[end:]), nil
}

// --- docker-bake.hcl: group "presets" and one target per preset ---

const (
	bakeGroupRegion   = "presets-group"
	bakeTargetsRegion = "presets-targets"
)

func bakeGroupHeld(src []byte) ([]string, error) {
	lines, err := regionLines(src, bakeGroupRegion)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range lines {
		name, err := strconv.Unquote(strings.TrimSuffix(l, ","))
		if err != nil {
			return nil, fmt.Errorf("line %q is not a quoted target name", l)
		}
		out = append(out, name)
	}
	return out, nil
}

func bakeGroupRender(src []byte, presets []*preset.Preset) ([]byte, error) {
	_, _, indent, err := region(src, bakeGroupRegion)
	if err != nil {
		return nil, err
	}
	lines := make([]string, len(presets))
	for i, p := range presets {
		lines[i] = indent + strconv.Quote(p.Name)
		if i < len(presets)-1 {
			lines[i] += ","
		}
	}
	return replaceRegion(src, bakeGroupRegion, lines)
}

var bakeTarget = regexp.MustCompile(`(?m)^[ \t]*target[ \t]+"([^"]+)"`)

func bakeTargetsHeld(src []byte) ([]string, error) {
	start, end, _, err := region(src, bakeTargetsRegion)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range bakeTarget.FindAllSubmatch(src[start:end], -1) {
		out = append(out, string(m[1]))
	}
	return out, nil
}

// bakeVariables are the defaults of the file's variable blocks (REGISTRY, TAG).
func bakeVariables(src []byte) (map[string]string, error) {
	f, diags := hclsyntax.ParseConfig(src, bakeFile, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	out := map[string]string{}
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		attr, ok := b.Body.Attributes["default"]
		if b.Type != "variable" || len(b.Labels) != 1 || !ok {
			continue
		}
		v, diags := attr.Expr.Value(nil)
		if diags.HasErrors() || !v.Type().Equals(cty.String) {
			return nil, fmt.Errorf("variable %q: the default is not a string", b.Labels[0])
		}
		out[b.Labels[0]] = v.AsString()
	}
	return out, nil
}

// bakeTargetsRender writes one target per preset: its context is the preset's folder, or
// targets/ when a <dockerfile>.dockerignore beside the Dockerfile says the build takes the
// shared kit in targets/_lib (and trims the rest); its tag is target.yaml's image with the
// file's REGISTRY and TAG defaults as variables, so the defaults build what the chart deploys.
func bakeTargetsRender(src []byte, presets []*preset.Preset) ([]byte, error) {
	vars, err := bakeVariables(src)
	if err != nil {
		return nil, err
	}
	registry, tag := vars["REGISTRY"], vars["TAG"]
	var lines []string
	var errs []error
	for i, p := range presets {
		repo, ok := strings.CutPrefix(p.Image, registry+"/")
		if ok {
			repo, ok = strings.CutSuffix(repo, ":"+tag)
		}
		if !ok || registry == "" || tag == "" {
			errs = append(errs, fmt.Errorf("targets/%s/%s: image %q is not REGISTRY/<repository>:TAG with the file's defaults (REGISTRY %q, TAG %q)", p.Name, preset.FileName, p.Image, registry, tag))
			continue
		}
		if i > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, fmt.Sprintf("target %q {", p.Name))
		context, dockerfile := "targets/"+p.Name, p.Dockerfile
		if _, err := os.Stat(filepath.Join(p.Dir, p.Dockerfile+".dockerignore")); err == nil {
			context, dockerfile = "targets", p.Name+"/"+p.Dockerfile
			lines = append(lines, fmt.Sprintf("  # context targets/: the shared kit in targets/_lib; %s.dockerignore trims it", dockerfile))
		}
		lines = append(lines,
			`  inherits   = ["_platforms"]`,
			fmt.Sprintf("  context    = %q", context),
			fmt.Sprintf("  dockerfile = %q", dockerfile),
			fmt.Sprintf(`  tags       = ["${REGISTRY}/%s:${TAG}"]`, repo),
			"}")
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return replaceRegion(src, bakeTargetsRegion, lines)
}

// --- hack/lab/images.sh: img_<preset> recipes ---

const labRegion = "presets-recipes"

// labRecipes are the generic recipes of images.sh, by the script that installs a preset here
// (local.install): a preset installed otherwise has its own img_<preset> written by hand.
var labRecipes = map[string]string{
	"hack/targets/node.sh":   "img_node",
	"hack/targets/python.sh": "img_python",
	"hack/targets/pypy.sh":   "img_python",
}

var labFunc = regexp.MustCompile(`^img_([A-Za-z0-9_-]+)\(\)`)

func labHeld(src []byte) ([]string, error) {
	lines, err := regionLines(src, labRegion)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range lines {
		m := labFunc.FindStringSubmatch(l)
		if m == nil {
			return nil, fmt.Errorf("line %q is not an img_<preset>() recipe", l)
		}
		out = append(out, m[1])
	}
	return out, nil
}

func labWant(presets []*preset.Preset) []string {
	var out []string
	for _, p := range presets {
		if _, ok := labRecipes[p.Local.Install]; ok {
			out = append(out, p.Name)
		}
	}
	return out
}

func labRender(src []byte, presets []*preset.Preset) ([]byte, error) {
	start, end, indent, err := region(src, labRegion)
	if err != nil {
		return nil, err
	}
	outside := slices.Concat(src[:start], src[end:])
	var lines []string
	var errs []error
	for _, p := range presets {
		handWritten := regexp.MustCompile(`(?m)^img_` + regexp.QuoteMeta(p.Name) + `\(\)`).Match(outside)
		recipe, generic := labRecipes[p.Local.Install]
		switch {
		case generic && handWritten:
			errs = append(errs, fmt.Errorf("img_%s() is written by hand and generated (local.install %s): remove the hand-written one", p.Name, p.Local.Install))
		case generic:
			lines = append(lines, fmt.Sprintf("%simg_%s() { %s %s; }", indent, p.Name, recipe, p.Name))
		case !handWritten:
			errs = append(errs, fmt.Errorf("preset %s has no image recipe: local.install %q has no generic one (%s), so write img_%s() by hand, as img_go-nethttp", p.Name, p.Local.Install, strings.Join(slices.Sorted(maps.Keys(labRecipes)), ", "), p.Name))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return replaceRegion(src, labRegion, lines)
}
