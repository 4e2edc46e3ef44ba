package specs

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestReadTestRunStatus(t *testing.T) {
	cases := []struct {
		name   string
		status any
		want   TestRunStatus
		done   bool
		err    bool
	}{
		{"no status yet", nil, TestRunStatus{}, false, false},
		{"started", map[string]any{"stage": "started"}, TestRunStatus{Stage: StageStarted}, false, false},
		{"finished with a condition", map[string]any{"stage": "finished", "testRunId": "7",
			"conditions": []any{map[string]any{"type": "TestRunRunning", "status": "False", "reason": "TestRunRunningFalse",
				"message": "", "lastTransitionTime": "2026-01-02T03:04:05Z"}}},
			TestRunStatus{Stage: StageFinished, TestRunID: "7", Conditions: []metav1.Condition{{
				Type: "TestRunRunning", Status: metav1.ConditionFalse, Reason: "TestRunRunningFalse",
				LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Local())}}}, true, false},
		{"error", map[string]any{"stage": "error"}, TestRunStatus{Stage: StageError}, true, false},
		{"malformed", map[string]any{"stage": int64(3)}, TestRunStatus{}, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "x"}}}
			if c.status != nil {
				u.Object["status"] = c.status
			}
			got, err := ReadTestRunStatus(u)
			if (err != nil) != c.err {
				t.Fatalf("err = %v, want error: %v", err, c.err)
			}
			if c.err {
				return
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("status = %+v, want %+v", got, c.want)
			}
			if got.Done() != c.done {
				t.Errorf("Done() = %v, want %v", got.Done(), c.done)
			}
		})
	}
}
