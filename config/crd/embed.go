// Package crd embeds the generated CustomResourceDefinitions, so the CLI validates with
// exactly the schema the API server enforces.
package crd

import _ "embed"

// BenchmarkRun is the generated BenchmarkRun CRD (controller-gen output).
//
//go:embed bases/gauntlet.dev_benchmarkruns.yaml
var BenchmarkRun []byte

// BenchmarkSchedule is the generated BenchmarkSchedule CRD.
//
//go:embed bases/gauntlet.dev_benchmarkschedules.yaml
var BenchmarkSchedule []byte
