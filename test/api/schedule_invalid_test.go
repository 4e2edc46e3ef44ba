package api

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// baseSchedule is a valid schedule that every case below breaks in exactly one way.
const baseSchedule = `
apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkSchedule
metadata:
  name: nightly
spec:
  schedule: "0 3 * * *"
  timeZone: Europe/Berlin
  startingDeadlineSeconds: 600
  concurrencyPolicy: Replace
  template:
    spec:
      targets: [{name: go, preset: go-nethttp}]
      scenarios: [{name: ping, workload: ping}]
      load: {rates: [200], repetitions: 5}
`

var invalidScheduleCases = []invalidCase{
	{"time zone unknown", set("spec.timeZone", "Europe/Atlantis"), "spec.timeZone"},
	{"time zone Local", set("spec.timeZone", "Local"), "spec.timeZone"},
	{"time zone a path", set("spec.timeZone", "../../etc/passwd"), "spec.timeZone"},
	{"time zone empty", set("spec.timeZone", ""), "spec.timeZone"},
	{"CRON_TZ in the schedule", set("spec.schedule", "CRON_TZ=Europe/Berlin 0 3 * * *"), "spec.schedule"},
	{"TZ in the schedule", set("spec.schedule", "TZ=UTC @daily"), "spec.schedule"},
	{"concurrency policy unknown", set("spec.concurrencyPolicy", "Sometimes"), "spec.concurrencyPolicy"},
	{"starting deadline under 10 s", set("spec.startingDeadlineSeconds", 5), "spec.startingDeadlineSeconds"},
	{"name too long for a label", set("metadata.name", strings.Repeat("n", 64)), "metadata.name"},
	{"template label value too long", set("spec.template.labels", map[string]any{"team": strings.Repeat("a", 64)}), "spec.template.labels"},
	{"template annotation over 1 KiB", set("spec.template.annotations", map[string]any{"notes": strings.Repeat("a", 1025)}), "spec.template.annotations"},
	{"template with 33 annotations", set("spec.template.annotations", manyKeys(33)), "spec.template.annotations"},
	{"template rate zero", set("spec.template.spec.load.rates", []any{0}), "spec.template.spec.load.rates[0]"},
}

// Each invalid schedule is refused by the API server with a message naming the field, and
// gauntlet validate gives the same verdict naming the same field; the base passes both.
func TestInvalidSchedulesAreRefused(t *testing.T) {
	testenv.Long(t)
	ns := newNamespace(t)
	parse := func() map[string]any {
		obj := map[string]any{}
		if err := yaml.Unmarshal([]byte(baseSchedule), &obj); err != nil {
			t.Fatal(err)
		}
		return obj
	}
	u := &unstructured.Unstructured{Object: parse()}
	u.SetNamespace(ns)
	u.SetName("accepted")
	if err := env.Client.Create(context.Background(), u, strict); err != nil {
		t.Fatalf("the API server refuses the base schedule: %v", err)
	}
	if doc := validator.Validate(context.Background(), []byte(baseSchedule)); len(doc.Errors) > 0 {
		t.Fatalf("gauntlet validate refuses the base schedule: %v", doc.Errors.ToAggregate())
	}
	for _, tc := range invalidScheduleCases {
		t.Run(tc.name, func(t *testing.T) {
			obj := parse()
			tc.mutate(obj)
			refusedByBoth(t, ns, obj, tc.field)
		})
	}
}

// manyKeys is a map of n short entries.
func manyKeys(n int) map[string]any {
	m := map[string]any{}
	for i := range n {
		m[fmt.Sprintf("k%d", i)] = "v"
	}
	return m
}
