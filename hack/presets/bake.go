package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

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
