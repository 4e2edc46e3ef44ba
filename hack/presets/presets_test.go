package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

// repo is the repository's root, from this package's folder.
var repo = filepath.Join("..", "..")

func catalogue(t *testing.T) []*preset.Preset {
	t.Helper()
	presets, err := preset.LoadAll(filepath.Join(repo, "targets"))
	if err != nil {
		t.Fatal(err)
	}
	return presets
}

// copyLists copies every file that holds a list into a new root and returns it.
func copyLists(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, l := range lists {
		data, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(l.file)))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, root, l.file, string(data))
	}
	return root
}

func writeFile(t *testing.T, root, name, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, root, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func without(presets []*preset.Preset, name string) []*preset.Preset {
	return slices.DeleteFunc(slices.Clone(presets), func(p *preset.Preset) bool { return p.Name == name })
}

// The committed lists are what the catalogue makes them (make verify-generated says the same
// after running the generator; this says it in the unit tier).
func TestRepositoryListsAreCurrent(t *testing.T) {
	problems, err := Check(repo, catalogue(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// Each list written without python-flask: the check names that file, that list and the
// preset, and nothing else; writing from the catalogue restores the committed file byte for byte.
func TestCheckNamesTheListThatLacksAPreset(t *testing.T) {
	full := catalogue(t)
	less := without(full, "python-flask")
	if len(less) != len(full)-1 {
		t.Fatal("python-flask is not in the catalogue")
	}
	for _, l := range lists {
		t.Run(l.file+" "+l.name, func(t *testing.T) {
			root := copyLists(t)
			orig := readFile(t, root, l.file)
			stale, err := l.render([]byte(orig), less)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, root, l.file, string(stale))
			problems, err := Check(root, full)
			if err != nil {
				t.Fatal(err)
			}
			want := l.file + ": " + l.name + ": missing python-flask"
			if len(problems) != 1 || !strings.HasPrefix(problems[0], want) {
				t.Fatalf("problems %q, want one starting %q", problems, want)
			}
			changed, err := Write(root, full)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(changed, []string{l.file}) {
				t.Errorf("wrote %v, want only %s", changed, l.file)
			}
			if got := readFile(t, root, l.file); got != orig {
				t.Errorf("%s rewritten differs from the committed file:\n%s", l.file, got)
			}
		})
	}
}

// The same, with the lists edited by hand rather than by the generator.
func TestCheckNamesAPresetRemovedByHand(t *testing.T) {
	edits := []struct{ file, old, new, want string }{
		{valuesFile, "  python-flask: ghcr.io/gauntlet-bench/target-python-flask\n", "",
			"charts/gauntlet/values.yaml: presetImages: missing python-flask"},
		{apiFile, ";python-flask;", ";", "api/v1alpha1/target_types.go: Target.Preset's +kubebuilder:validation:Enum: missing python-flask"},
		{bakeFile, `    "python-flask",` + "\n", "", `docker-bake.hcl: group "presets": missing python-flask`},
		{labFile, "img_python-flask() { img_python python-flask; }\n", "", "hack/lab/images.sh: img_<preset> recipes: missing python-flask"},
		{valuesFile, "  cpp-epoll: ", "  cpp-epol: ", "charts/gauntlet/values.yaml: presetImages: missing cpp-epoll; extra cpp-epol"},
	}
	for _, e := range edits {
		root := copyLists(t)
		text := readFile(t, root, e.file)
		if !strings.Contains(text, e.old) {
			t.Fatalf("%s has no %q", e.file, e.old)
		}
		writeFile(t, root, e.file, strings.Replace(text, e.old, e.new, 1))
		problems, err := Check(root, catalogue(t))
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) != 1 || !strings.HasPrefix(problems[0], e.want) {
			t.Errorf("problems %q, want one starting %q", problems, e.want)
		}
	}
}

// newPreset makes a preset folder in a temporary targets/ and loads it as the catalogue would.
func newPreset(t *testing.T, name, install string, withIgnore bool) *preset.Preset {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "targets", name)
	writeFile(t, dir, "target.yaml", `name: `+name+`
description: a new preset
language:  {name: JavaScript, version: "ES2023"}
runtime:   {name: node, version: "22.12.0"}
framework: {name: Koa, version: "2.15.3"}
endpoints: [ping]
image: ghcr.io/gauntlet-bench/target-`+name+`:0.1.0
dockerfile: Dockerfile
local:
  install: `+install+`
  start: ["node", "main.js"]
`)
	writeFile(t, dir, "Dockerfile", "FROM scratch\n")
	if withIgnore {
		writeFile(t, dir, "Dockerfile.dockerignore", "*\n")
	}
	p, err := preset.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func with(presets []*preset.Preset, p *preset.Preset) []*preset.Preset {
	out := append(slices.Clone(presets), p)
	slices.SortFunc(out, func(a, b *preset.Preset) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// A new folder under targets/ reaches every list through Write alone, and a second Write
// changes nothing.
func TestWriteAddsANewPresetToEveryList(t *testing.T) {
	root := copyLists(t)
	koa := newPreset(t, "node-koa", "hack/targets/node.sh", true)
	presets := with(catalogue(t), koa)
	problems, err := Check(root, presets)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != len(lists) {
		t.Errorf("before Write: %d problems, want one per list (%d): %q", len(problems), len(lists), problems)
	}
	for _, p := range problems {
		if !strings.Contains(p, "missing node-koa") {
			t.Errorf("problem %q does not name node-koa", p)
		}
	}
	changed, err := Write(root, presets)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != 5 {
		t.Errorf("wrote %v, want the five files", changed)
	}
	for file, wants := range map[string][]string{
		apiFile:    {";node-express;node-fastify;node-koa;node-nestjs;"},
		valuesFile: {"\n  node-koa: ghcr.io/gauntlet-bench/target-node-koa\n"},
		bakeFile: {`    "node-koa",` + "\n", `target "node-koa" {
  # context targets/: the shared kit in targets/_lib; node-koa/Dockerfile.dockerignore trims it
  inherits   = ["_platforms"]
  context    = "targets"
  dockerfile = "node-koa/Dockerfile"
  tags       = ["${REGISTRY}/target-node-koa:${TAG}"]
}`},
		labFile: {"\nimg_node-koa() { img_node node-koa; }\n"},
	} {
		text := readFile(t, root, file)
		for _, w := range wants {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q", file, w)
			}
		}
	}
	var schema struct {
		Properties struct {
			PresetImages struct {
				Properties map[string]struct {
					Type      string `json:"type"`
					MinLength int    `json:"minLength"`
				} `json:"properties"`
			} `json:"presetImages"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(readFile(t, root, schemaFile)), &schema); err != nil {
		t.Fatal(err)
	}
	if p, ok := schema.Properties.PresetImages.Properties["node-koa"]; !ok || p.Type != "string" || p.MinLength != 1 {
		t.Errorf("values.schema.json: presetImages.node-koa = %+v, %v", p, ok)
	}
	if problems, _ := Check(root, presets); len(problems) > 0 {
		t.Errorf("after Write: %q", problems)
	}
	if changed, err := Write(root, presets); err != nil || len(changed) > 0 {
		t.Errorf("second Write changed %v (%v)", changed, err)
	}
}

// A preset whose own folder is the build context (no Dockerfile.dockerignore) is built from it.
func TestBakeContextWithoutTheKit(t *testing.T) {
	root := copyLists(t)
	p := newPreset(t, "node-koa", "hack/targets/node.sh", false)
	if _, err := Write(root, with(catalogue(t), p)); err != nil {
		t.Fatal(err)
	}
	want := `target "node-koa" {
  inherits   = ["_platforms"]
  context    = "targets/node-koa"
  dockerfile = "Dockerfile"
  tags       = ["${REGISTRY}/target-node-koa:${TAG}"]
}`
	if text := readFile(t, root, bakeFile); !strings.Contains(text, want) {
		t.Errorf("docker-bake.hcl lacks\n%s", want)
	}
}

// What cannot be generated fails naming the preset, and Write then writes nothing.
func TestWriteRefusesWhatItCannotGenerate(t *testing.T) {
	ruby := newPreset(t, "ruby-rails", "hack/targets/ruby.sh", false)
	foreign := newPreset(t, "node-koa", "hack/targets/node.sh", false)
	foreign.Image = "docker.io/someone/koa:1"
	for _, c := range []struct {
		p    *preset.Preset
		want string
	}{
		{ruby, "hack/lab/images.sh: img_<preset> recipes: preset ruby-rails has no image recipe"},
		{foreign, `docker-bake.hcl: preset targets: targets/node-koa/target.yaml: image "docker.io/someone/koa:1" is not REGISTRY/<repository>:TAG`},
	} {
		root := copyLists(t)
		_, err := Write(root, with(catalogue(t), c.p))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Write: %v, want an error with %q", err, c.want)
		}
		for _, l := range lists {
			if readFile(t, root, l.file) != readFile(t, repo, l.file) {
				t.Errorf("%s was written although Write failed", l.file)
			}
		}
	}
}

// A file whose markers were removed is an error naming them, not a silent skip.
func TestMissingMarkersAreAnError(t *testing.T) {
	root := copyLists(t)
	text := readFile(t, root, valuesFile)
	writeFile(t, root, valuesFile, strings.Replace(text, "# END GENERATED presetImages", "# end", 1))
	_, err := Write(root, catalogue(t))
	if err == nil || !strings.Contains(err.Error(), `charts/gauntlet/values.yaml: presetImages: want one line "# BEGIN GENERATED presetImages`) {
		t.Errorf("Write: %v", err)
	}
}

// TestUntagged: the chart's presetImages hold repositories; an image the chart could not give
// its version (a digest, no tag) is refused with the image named.
func TestUntagged(t *testing.T) {
	for image, want := range map[string]string{
		"ghcr.io/gauntlet-bench/target-go-nethttp:0.1.0": "ghcr.io/gauntlet-bench/target-go-nethttp",
		"localhost:5000/target-nginx:1":                  "localhost:5000/target-nginx",
	} {
		if got, err := untagged(image); err != nil || got != want {
			t.Errorf("untagged(%q) = %q, %v; want %q", image, got, err, want)
		}
	}
	for _, image := range []string{"localhost:5000/target-nginx", "ghcr.io/x/y@sha256:0123", "nginx"} {
		if _, err := untagged(image); err == nil || !strings.Contains(err.Error(), image) {
			t.Errorf("untagged(%q): %v, want an error naming it", image, err)
		}
	}
}
