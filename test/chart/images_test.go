package chart

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

// The images cannot be built here (no Docker engine); these tests check the recipes instead:
// docker-bake.hcl builds every preset with a Dockerfile and the operator, for amd64 and arm64,
// under the names the chart and target.yaml deploy, and each Dockerfile runs, as a non-root
// user, the program local mode runs (target.yaml local.start).

type bakeFile struct {
	Variables []struct {
		Name    string         `hcl:"name,label"`
		Default hcl.Expression `hcl:"default"`
	} `hcl:"variable,block"`
	Groups []struct {
		Name    string   `hcl:"name,label"`
		Targets []string `hcl:"targets"`
	} `hcl:"group,block"`
	Targets []bakeTarget `hcl:"target,block"`
}

type bakeTarget struct {
	Name       string            `hcl:"name,label"`
	Inherits   []string          `hcl:"inherits,optional"`
	Context    string            `hcl:"context,optional"`
	Dockerfile string            `hcl:"dockerfile,optional"`
	Tags       []string          `hcl:"tags,optional"`
	Platforms  []string          `hcl:"platforms,optional"`
	Labels     map[string]string `hcl:"labels,optional"`
	Args       map[string]string `hcl:"args,optional"`
}

// readBake decodes docker-bake.hcl with its variables at their defaults, as `docker buildx
// bake` would with none set.
func readBake(t *testing.T) (bakeFile, map[string]bakeTarget) {
	t.Helper()
	f, diags := hclparse.NewParser().ParseHCLFile(filepath.Join(root, "docker-bake.hcl"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	// First pass: the variables' defaults, which the other blocks interpolate.
	var vars struct {
		Variables []struct {
			Name    string `hcl:"name,label"`
			Default string `hcl:"default"`
		} `hcl:"variable,block"`
		Remain hcl.Body `hcl:",remain"`
	}
	if diags := gohcl.DecodeBody(f.Body, nil, &vars); diags.HasErrors() {
		t.Fatal(diags)
	}
	values := map[string]cty.Value{}
	for _, v := range vars.Variables {
		values[v.Name] = cty.StringVal(v.Default)
	}
	var bake bakeFile
	if diags := gohcl.DecodeBody(f.Body, &hcl.EvalContext{Variables: values}, &bake); diags.HasErrors() {
		t.Fatal(diags)
	}
	targets := map[string]bakeTarget{}
	for _, tg := range bake.Targets {
		targets[tg.Name] = tg
	}
	// Resolve inherits the way bake does: unset fields come from the parents.
	for name, tg := range targets {
		for _, parent := range tg.Inherits {
			p, ok := targets[parent]
			if !ok {
				t.Fatalf("target %q inherits unknown %q", name, parent)
			}
			if len(tg.Platforms) == 0 {
				tg.Platforms = p.Platforms
			}
		}
		targets[name] = tg
	}
	return bake, targets
}

func TestBakeBuildsEveryImage(t *testing.T) {
	bake, targets := readBake(t)
	presets, err := preset.LoadAll(filepath.Join(root, "targets"))
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string][]string{}
	for _, g := range bake.Groups {
		groups[g.Name] = g.Targets
	}
	built := expand(groups, "default")
	for _, p := range presets {
		tg, ok := targets[p.Name]
		if !ok {
			t.Errorf("docker-bake.hcl has no target %q (targets/%s/%s)", p.Name, p.Name, p.Dockerfile)
			continue
		}
		if !slices.Contains(built, p.Name) {
			t.Errorf("target %q is not in the default group: make images would skip it", p.Name)
		}
		// The Dockerfile the target points at is the preset's, whichever context it needs.
		df := filepath.Join(root, tg.Context, tg.Dockerfile)
		if want := filepath.Join(p.Dir, p.Dockerfile); filepath.Clean(df) != filepath.Clean(want) {
			t.Errorf("target %q builds %s, the preset's Dockerfile is %s", p.Name, df, want)
		}
		if !slices.Equal(tg.Tags, []string{p.Image}) {
			t.Errorf("target %q tags %v, target.yaml deploys %s", p.Name, tg.Tags, p.Image)
		}
		checkPlatforms(t, p.Name, tg.Platforms)
	}
	op, ok := targets["operator"]
	if !ok || !slices.Contains(built, "operator") {
		t.Fatal("docker-bake.hcl does not build the operator in its default group")
	}
	checkPlatforms(t, "operator", op.Platforms)
	// The image's presets name their images at the image's own tag (the Dockerfile's VERSION).
	if tag := op.Tags[0][strings.LastIndex(op.Tags[0], ":")+1:]; op.Args["VERSION"] != tag {
		t.Errorf("operator target passes VERSION=%q, its tag is %q: the manager's presets would name another release's images", op.Args["VERSION"], tag)
	}
	var chart struct {
		AppVersion string `json:"appVersion"`
	}
	readYAML(t, filepath.Join(chartDir, "Chart.yaml"), &chart)
	var values struct {
		Image struct{ Repository string } `json:"image"`
	}
	readYAML(t, filepath.Join(chartDir, "values.yaml"), &values)
	if want := values.Image.Repository + ":" + chart.AppVersion; !slices.Equal(op.Tags, []string{want}) {
		t.Errorf("operator target tags %v, the chart deploys %s", op.Tags, want)
	}
}

func checkPlatforms(t *testing.T, name string, platforms []string) {
	t.Helper()
	sort.Strings(platforms)
	if !slices.Equal(platforms, []string{"linux/amd64", "linux/arm64"}) {
		t.Errorf("target %q builds for %v, want linux/amd64 and linux/arm64", name, platforms)
	}
}

// expand lists the targets a group builds, through nested groups.
func expand(groups map[string][]string, name string) []string {
	var out []string
	for _, member := range groups[name] {
		if _, isGroup := groups[member]; isGroup {
			out = append(out, expand(groups, member)...)
		} else {
			out = append(out, member)
		}
	}
	return out
}

// TestDockerfilesRunLocalStartAsNonRoot: in every preset's Dockerfile, the final stage sets a
// numeric non-root USER (runAsNonRoot can only verify numbers) and its CMD is target.yaml's
// local.start; the operator's Dockerfile also ends as non-root.
func TestDockerfilesRunLocalStartAsNonRoot(t *testing.T) {
	presets, err := preset.LoadAll(filepath.Join(root, "targets"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range presets {
		final := finalStage(t, filepath.Join(p.Dir, p.Dockerfile))
		checkUser(t, p.Name, final)
		cmd, ok := last(final, "CMD")
		if !ok {
			t.Errorf("%s: the final stage has no CMD", p.Name)
			continue
		}
		var argv []string
		if err := json.Unmarshal([]byte(cmd), &argv); err != nil {
			t.Errorf("%s: CMD %s is not the exec (JSON) form: %v", p.Name, cmd, err)
			continue
		}
		if !slices.Equal(argv, p.Local.Start) {
			t.Errorf("%s: Dockerfile CMD %q, target.yaml local.start %q: the image and local mode must run the same program", p.Name, argv, p.Local.Start)
		}
	}
	checkUser(t, "operator", finalStage(t, filepath.Join(root, "Dockerfile")))
}

func checkUser(t *testing.T, name string, final []instruction) {
	t.Helper()
	user, ok := last(final, "USER")
	if !ok {
		t.Errorf("%s: the final stage sets no USER (it would run as root)", name)
		return
	}
	uid, _, _ := strings.Cut(user, ":")
	var n int
	if _, err := fmt.Sscanf(uid, "%d", &n); err != nil || fmt.Sprint(n) != uid || n == 0 {
		t.Errorf("%s: USER %s, want a numeric non-root uid", name, user)
	}
}

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct{ keyword, args string }

// finalStage is the instructions after the last FROM.
func finalStage(t *testing.T, path string) []instruction {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var all []instruction
	var cur strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur.Len() == 0) {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		keyword, args, _ := strings.Cut(cur.String(), " ")
		all = append(all, instruction{strings.ToUpper(keyword), strings.TrimSpace(args)})
		cur.Reset()
	}
	start := -1
	for i, in := range all {
		if in.keyword == "FROM" {
			start = i
		}
	}
	if start < 0 {
		t.Fatalf("%s has no FROM", path)
	}
	return all[start+1:]
}

func last(stage []instruction, keyword string) (string, bool) {
	for i := len(stage) - 1; i >= 0; i-- {
		if stage[i].keyword == keyword {
			return stage[i].args, true
		}
	}
	return "", false
}
