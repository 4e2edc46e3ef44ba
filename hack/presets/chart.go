package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

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

// valuesRender writes each preset's repository, target.yaml's image without its tag: the chart
// adds the tag of its appVersion (templates/_helpers.tpl, gauntlet.presetImage), so one chart
// version deploys one release's targets.
func valuesRender(src []byte, presets []*preset.Preset) ([]byte, error) {
	_, _, indent, err := region(src, valuesRegion)
	if err != nil {
		return nil, err
	}
	lines := make([]string, len(presets))
	var errs []error
	for i, p := range presets {
		image, err := untagged(p.Image)
		if err != nil {
			errs = append(errs, fmt.Errorf("targets/%s/%s: %w", p.Name, preset.FileName, err))
			continue
		}
		if !plainScalar.MatchString(image) {
			image = strconv.Quote(image) // a JSON string, which YAML reads as written
		}
		lines[i] = indent + p.Name + ": " + image
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return replaceRegion(src, valuesRegion, lines)
}

// untagged is image without its tag. A digest or a missing tag is refused: the chart would
// deploy either as written, whatever its version.
func untagged(image string) (string, error) {
	slash := strings.LastIndex(image, "/")
	colon := strings.LastIndex(image, ":")
	if strings.Contains(image, "@") || colon < slash+1 {
		return "", fmt.Errorf("image %q is not repository:tag (the chart replaces the tag with its appVersion)", image)
	}
	return image[:colon], nil
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
