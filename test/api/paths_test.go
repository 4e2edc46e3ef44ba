package api

import (
	"strconv"
	"strings"
)

// walk follows a dotted path ("spec.targets.0") through maps and lists, creating maps.
func walk(o map[string]any, parts []string) map[string]any {
	var cur any = o
	for _, p := range parts {
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[p]
			if !ok {
				next = map[string]any{}
				c[p] = next
			}
			cur = next
		case []any:
			i, _ := strconv.Atoi(p)
			cur = c[i]
		}
	}
	return cur.(map[string]any)
}

func setPath(o map[string]any, path string, value any) {
	parts := strings.Split(path, ".")
	walk(o, parts[:len(parts)-1])[parts[len(parts)-1]] = value
}
