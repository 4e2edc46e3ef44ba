package controllers

import (
	"github.com/gauntlet-bench/gauntlet/internal/engine"
)

// The engine owns conditions and the run's end; these names keep the phases short.
var (
	setCondition = engine.SetCondition
	finished     = engine.Finished
)
