package main

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

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
