package api

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// Every shipped sample must be accepted by the API server and by gauntlet validate.
func TestSamplesAreAccepted(t *testing.T) {
	testenv.Long(t)
	var files []string
	for _, pattern := range []string{"config/samples/*.yaml", "examples/*.yaml"} {
		m, _ := filepath.Glob(filepath.Join(testenv.Root(), pattern))
		files = append(files, m...)
	}
	if len(files) < 6 {
		t.Fatalf("expected the quickstart and five seed samples, found %d files", len(files))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ns := newNamespace(t) // examples/ and config/samples/ may reuse a name
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			docs, err := validator.ReadAll(context.Background(), bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				if len(d.Errors) > 0 {
					t.Errorf("gauntlet validate refuses %s: %v", d.Name(), d.Errors.ToAggregate())
				}
			}
			reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
			for {
				doc, err := reader.Read()
				if errors.Is(err, io.EOF) {
					break
				}
				u := &unstructured.Unstructured{}
				if err := yaml.Unmarshal(doc, &u.Object); err != nil {
					t.Fatal(err)
				}
				u.SetNamespace(ns)
				if err := env.Client.Create(context.Background(), u, strict); err != nil {
					t.Errorf("the API server refuses %s: %v", u.GetName(), err)
				}
			}
		})
	}
}
