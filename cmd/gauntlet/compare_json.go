package main

import (
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/compare"
)

// comparisonJSON is `compare -o json`: the answer and every compared row, as the run's
// status holds them (a CI job reads the same fields kubectl shows).
type comparisonJSON struct {
	Run       string               `json:"run"`
	Summary   string               `json:"summary"`
	Verdict   string               `json:"verdict,omitempty"`
	Regressed *metav1.Condition    `json:"regressed,omitempty"`
	Baseline  *benchv1.BaselineRef `json:"baseline,omitempty"`
	Rows      []comparisonJSONRow  `json:"rows"`
}

type comparisonJSONRow struct {
	Target     string             `json:"target"`
	Scenario   string             `json:"scenario"`
	LoadPoint  int32              `json:"loadPoint"`
	Comparison benchv1.Comparison `json:"comparison"`
}

func writeComparisonJSON(w io.Writer, run *benchv1.BenchmarkRun) error {
	out := comparisonJSON{Run: run.Name, Summary: compare.Summary(run), Verdict: run.Status.Verdict,
		Regressed: meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed),
		Baseline:  run.Status.Baseline, Rows: []comparisonJSONRow{}}
	for _, r := range run.Status.Results {
		if r.Baseline != nil {
			out.Rows = append(out.Rows, comparisonJSONRow{Target: r.Target, Scenario: r.Scenario, LoadPoint: r.LoadPoint, Comparison: *r.Baseline})
		}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}
