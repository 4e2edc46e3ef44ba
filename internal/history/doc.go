// Package history reads a folder of finished BenchmarkRuns (the status.yaml files of
// `gauntlet run --local`, or runs exported from a cluster with kubectl), orders them by
// time, and finds the change points of every row's figures of record over the runs with
// internal/changepoint: where p50, p99, CPU per request or capacity moved to a new level,
// by how much, in which direction, and how significantly.
package history
