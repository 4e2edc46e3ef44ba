package specs

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestRunGVK is k6-operator's TestRun kind.
var TestRunGVK = schema.GroupVersionKind{Group: "k6.io", Version: "v1alpha1", Kind: "TestRun"}

// Stages of a TestRun (k6-operator's Stage enum), in the order they are reached; error can
// follow any of them.
const (
	StageInitialization = "initialization"
	StageInitialized    = "initialized"
	StageCreated        = "created"
	StageStarted        = "started"
	StageStopped        = "stopped"
	StageFinished       = "finished"
	StageError          = "error"
)

// TestRunStatus mirrors k6-operator's TestRunStatus.
type TestRunStatus struct {
	Stage      string             `json:"stage,omitempty"`
	TestRunID  string             `json:"testRunId,omitempty"`
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Done reports whether k6-operator is finished with the TestRun, well or not.
func (s TestRunStatus) Done() bool { return s.Stage == StageFinished || s.Stage == StageError }

// ReadTestRunStatus reads the status of a TestRun; a TestRun without status yet has the
// zero status.
func ReadTestRunStatus(u *unstructured.Unstructured) (TestRunStatus, error) {
	var st TestRunStatus
	raw, found, err := unstructured.NestedMap(u.Object, "status")
	if err != nil {
		return st, fmt.Errorf("TestRun %s: status: %w", u.GetName(), err)
	}
	if !found {
		return st, nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &st); err != nil {
		return st, fmt.Errorf("TestRun %s: status: %w", u.GetName(), err)
	}
	return st, nil
}
