package validation

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

// hostileBase is a valid run every case of the corpus patches.
const hostileBase = `{"apiVersion": "gauntlet.dev/v1alpha1", "kind": "BenchmarkRun",
 "metadata": {"name": "hostile", "namespace": "tenant-a"},
 "spec": {"targets": [{"name": "go", "preset": "go-nethttp"}],
  "scenarios": [{"name": "ping", "workload": "ping"}],
  "load": {"rates": [100]}}}`

// hostileCase is one line of testdata/hostile-specs.jsonl: a JSON merge patch (RFC 7386)
// on hostileBase, and either the field its refusal must name or why accepting it harms
// nothing beyond the tenant's own run. "$repeat:N:c" is N times the character c.
type hostileCase struct {
	Area     string         `json:"area"`
	Name     string         `json:"name"`
	Patch    map[string]any `json:"patch"`
	Refuses  string         `json:"refuses"`
	Harmless string         `json:"harmless"`
}

// The hostile corpus: specs a tenant could submit to reach beyond its own run, across
// quantities, names, metadata, images, env, load, paths, pools, database, references and
// size. Each is refused naming its field, or is accepted with the reason it harms nothing
// beyond the tenant's own run. What the operator refuses beyond the CRD (resources,
// storage, paths) is refused here too: gauntlet validate judges as the operator does.
func TestHostileSpecCorpus(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/hostile-specs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	areas := map[string]int{}
	n := 0
	for sc.Scan() {
		var c hostileCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
		areas[c.Area]++
		var doc map[string]any
		if err := json.Unmarshal([]byte(hostileBase), &doc); err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(mergePatch(doc, expand(c.Patch).(map[string]any)))
		d := v.Validate(context.Background(), raw)
		var fields []string
		for _, e := range d.Errors {
			fields = append(fields, e.Error())
		}
		got := strings.Join(fields, "; ")
		switch {
		case c.Harmless != "" && len(d.Errors) > 0:
			t.Errorf("%s / %s: refused (%s), but the corpus says it is harmless: %s", c.Area, c.Name, got, c.Harmless)
		case c.Harmless == "" && c.Refuses == "":
			t.Errorf("%s / %s: neither refuses nor harmless", c.Area, c.Name)
		case c.Harmless == "" && len(d.Errors) == 0:
			t.Errorf("%s / %s: accepted; want a refusal naming %s", c.Area, c.Name, c.Refuses)
		case c.Harmless == "" && !strings.Contains(got, c.Refuses):
			t.Errorf("%s / %s: refused as %q; want the error to name %s", c.Area, c.Name, got, c.Refuses)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d hostile specs: %v", n, areas)
	if n < 120 || len(areas) < 11 {
		t.Errorf("the corpus has %d specs in %d areas: want at least 120 across the 11 areas", n, len(areas))
	}
}

// mergePatch applies an RFC 7386 merge patch: objects merge, null deletes, anything else
// (lists included) replaces.
func mergePatch(doc, patch map[string]any) map[string]any {
	for k, pv := range patch {
		if pv == nil {
			delete(doc, k)
			continue
		}
		pm, ok := pv.(map[string]any)
		dm, isMap := doc[k].(map[string]any)
		if ok && isMap {
			doc[k] = mergePatch(dm, pm)
			continue
		}
		doc[k] = pv
	}
	return doc
}

// expand turns "$repeat:N:c" strings (keys included) into N times c.
func expand(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[expand(k).(string)] = expand(e)
		}
		return out
	case []any:
		for i := range x {
			x[i] = expand(x[i])
		}
		return x
	case string:
		if rest, ok := strings.CutPrefix(x, "$repeat:"); ok {
			n, c, _ := strings.Cut(rest, ":")
			if count, err := strconv.Atoi(n); err == nil {
				return strings.Repeat(c, count)
			}
		}
	}
	return v
}
