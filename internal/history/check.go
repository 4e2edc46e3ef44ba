package history

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Bounds of what a history keeps. A schedule's history is read back from places someone
// else may have written (the ConfigMap, the history store), so each reader checks what it
// reads against what the controller itself could have written: these checks.
const (
	// MaxRunName is a Kubernetes object name's limit.
	MaxRunName = 253
	// MaxRowName bounds a target's and a scenario's name (the status's bounds).
	MaxRowName = 63
	// MaxValue bounds a figure's value in its unit: no run measures 10^15 µs or req/s.
	MaxValue = 1e15
	// MaxEnvironment bounds a run's environment key (compare.EnvironmentKey).
	MaxEnvironment = 1024
)

// CheckRunName refuses a run name the controller could not have recorded.
func CheckRunName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("run name is empty")
	case len(name) > MaxRunName:
		return fmt.Errorf("run name %q is longer than %d characters", name[:32]+"...", MaxRunName)
	}
	return nil
}

// CheckKey refuses a row key the controller could not have recorded.
func CheckKey(k Key) error {
	switch {
	case k.Target == "":
		return fmt.Errorf("row target is empty")
	case len(k.Target) > MaxRowName:
		return fmt.Errorf("row target %q is longer than %d characters", k.Target, MaxRowName)
	case len(k.Scenario) > MaxRowName:
		return fmt.Errorf("row scenario %q is longer than %d characters", k.Scenario, MaxRowName)
	case k.LoadPoint < 0:
		return fmt.Errorf("row load point %d is negative", k.LoadPoint)
	}
	return nil
}

// CheckValue refuses a figure name that is not one of Figures, and a value that is not a
// finite number in [0, MaxValue).
func CheckValue(figure string, v float64) error {
	switch {
	case !slices.Contains(Figures, figure):
		return fmt.Errorf("figure %q is not one of %s", figure, strings.Join(Figures, ", "))
	case math.IsNaN(v):
		return fmt.Errorf("%s %v is not a number", figure, v)
	case v < 0:
		return fmt.Errorf("%s %v is negative", figure, v)
	case v >= MaxValue: // +Inf too
		return fmt.Errorf("%s %v is not below %v", figure, v, MaxValue)
	}
	return nil
}
