// Command kubeschemas writes the JSON schemas kubeconform validates against, generated from the
// OpenAPI v3 that a real kube-apiserver (envtest) serves with the given CRDs installed: the
// built-in kinds and every CRD's own openAPIV3Schema come out of the same server, so they are
// exactly what a cluster of that version enforces. kubeconform's published schemas
// (yannh/kubernetes-json-schema) cannot be downloaded here.
//
// Layout: OUT/v<version>-standalone-strict/<kind>-<group prefix>-<version>.json, kubeconform's
// default, so `kubeconform -schema-location OUT -strict -kubernetes-version <version>` finds them.
// Strict, as kubeconform's "-strict" schemas: an object with listed properties admits no others,
// unless it preserves unknown fields.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

func main() {
	out := flag.String("out", "", "output directory")
	version := flag.String("kubernetes-version", "", "version kubeconform is told (for example 1.37.2)")
	assets := flag.String("assets", os.Getenv("KUBEBUILDER_ASSETS"), "kube-apiserver and etcd directory")
	flag.Parse()
	if *out == "" || *version == "" || *assets == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: kubeschemas -out DIR -kubernetes-version X.Y.Z [-assets DIR] CRD_DIR...")
		os.Exit(2)
	}
	if err := run(*out, *version, *assets, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "kubeschemas:", err)
		os.Exit(1)
	}
}

func run(out, version, assets string, crdDirs []string) error {
	ctrl.SetLogger(logr.Discard())
	env := &envtest.Environment{CRDDirectoryPaths: crdDirs, ErrorIfCRDPathMissing: true, BinaryAssetsDirectory: assets}
	cfg, err := env.Start()
	if err != nil {
		return err
	}
	defer func() { _ = env.Stop() }()
	// The API server publishes a CRD's OpenAPI a moment after the CRD is established: wait
	// until every installed CRD version is there.
	var want []string
	for _, crd := range env.CRDs {
		for _, v := range crd.Spec.Versions {
			if v.Served {
				want = append(want, "apis/"+crd.Spec.Group+"/"+v.Name)
			}
		}
	}
	var docs map[string]map[string]any
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(time.Second) {
		if docs, err = openAPIDocuments(cfg); err != nil {
			return err
		}
		missing := slices.DeleteFunc(slices.Clone(want), func(p string) bool { return docs[p] != nil })
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the API server did not publish the OpenAPI of %v", missing)
		}
	}
	dir := filepath.Join(out, "v"+version+"-standalone-strict")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	n := 0
	for _, doc := range docs {
		written, err := writeKinds(dir, doc)
		if err != nil {
			return err
		}
		n += written
	}
	if n == 0 {
		return fmt.Errorf("the API server published no kinds")
	}
	fmt.Fprintf(os.Stderr, "kubeschemas: %d schemas in %s\n", n, dir)
	return nil
}

// openAPIDocuments fetches every group-version's OpenAPI v3 document, by path.
func openAPIDocuments(cfg *rest.Config) (map[string]map[string]any, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	paths, err := dc.OpenAPIV3().Paths()
	if err != nil {
		return nil, err
	}
	docs := map[string]map[string]any{}
	for path, gv := range paths {
		if !strings.HasPrefix(path, "api/") && !strings.HasPrefix(path, "apis/") {
			continue
		}
		raw, err := gv.Schema("application/json")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		docs[path] = doc
	}
	return docs, nil
}

// writeKinds writes one standalone schema per kind the document defines (a schema with
// x-kubernetes-group-version-kind), each carrying the definitions it references.
func writeKinds(dir string, doc map[string]any) (int, error) {
	components, _ := doc["components"].(map[string]any)
	schemas, _ := components["schemas"].(map[string]any)
	n := 0
	for name, s := range schemas {
		schema, _ := s.(map[string]any)
		gvks, _ := schema["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			gvk, _ := g.(map[string]any)
			group, _ := gvk["group"].(string)
			version, _ := gvk["version"].(string)
			kind, _ := gvk["kind"].(string)
			if kind == "" || version == "" || strings.HasSuffix(kind, "List") && name != kind {
				continue
			}
			defs := map[string]any{}
			collect(name, schemas, defs)
			standalone := map[string]any{
				"$schema":     "http://json-schema.org/draft-04/schema#",
				"allOf":       []any{map[string]any{"$ref": "#/definitions/" + name}},
				"definitions": defs,
			}
			data, err := json.Marshal(standalone)
			if err != nil {
				return n, err
			}
			if err := os.WriteFile(filepath.Join(dir, fileName(group, version, kind)), data, 0o644); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// fileName is kubeconform's {{ .ResourceKind }}{{ .KindSuffix }}.json.
func fileName(group, version, kind string) string {
	suffix := "-" + strings.ToLower(strings.Split(group, ".")[0])
	if group == "" {
		suffix = ""
	}
	return strings.ToLower(kind) + suffix + "-" + strings.ToLower(version) + ".json"
}

// collect converts name and every definition it references into defs.
func collect(name string, schemas, defs map[string]any) {
	if _, done := defs[name]; done {
		return
	}
	defs[name] = nil // mark before recursing: definitions refer to themselves (JSONSchemaProps)
	var refs []string
	defs[name] = convert(schemas[name], &refs, name)
	for _, r := range refs {
		collect(r, schemas, defs)
	}
}

const refPrefix = "#/components/schemas/"

// convert turns an OpenAPI v3.0 schema into JSON schema draft 4: $refs point into
// definitions, nullable becomes a null type, int-or-string and quantities take both forms,
// and objects with listed properties are closed.
func convert(v any, refs *[]string, name string) any {
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = convert(e, refs, name)
		}
		return out
	case map[string]any:
		return convertSchema(t, refs, name)
	default:
		return v
	}
}

func convertSchema(s map[string]any, refs *[]string, name string) map[string]any {
	if name == "io.k8s.apimachinery.pkg.api.resource.Quantity" && s["type"] != nil {
		return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "number"}}}
	}
	out := map[string]any{}
	for k, v := range s {
		switch k {
		case "$ref":
			ref, _ := v.(string)
			target := strings.TrimPrefix(ref, refPrefix)
			*refs = append(*refs, target)
			out[k] = "#/definitions/" + target
		case "properties", "patternProperties", "definitions":
			props, _ := v.(map[string]any)
			conv := map[string]any{}
			for p, ps := range props {
				conv[p] = convert(ps, refs, "")
			}
			out[k] = conv
		case "nullable", "x-kubernetes-group-version-kind":
		default:
			out[k] = convert(v, refs, "")
		}
	}
	if s["x-kubernetes-int-or-string"] == true || s["format"] == "int-or-string" {
		delete(out, "type")
		delete(out, "format")
		out["oneOf"] = []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}
	}
	if s["nullable"] == true {
		if typ, ok := out["type"].(string); ok {
			out["type"] = []any{typ, "null"}
		}
	}
	if _, has := out["properties"]; has && out["additionalProperties"] == nil && s["x-kubernetes-preserve-unknown-fields"] != true {
		out["additionalProperties"] = false
	}
	return out
}
