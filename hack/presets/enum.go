package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

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
