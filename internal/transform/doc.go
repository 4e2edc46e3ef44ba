// Package transform holds the edits a BenchmarkRun's spec takes before it runs somewhere
// smaller than its author planned (--scale, --warmup/--duration/--repetitions, resource and
// worker caps), each recorded in an annotation so the status says what was really offered.
// `gauntlet fit` writes them for a cluster, the local mode applies them before a run.
package transform
