// Package local runs a benchmark on one machine (gauntlet run --local): it plans the trials
// as the operator does, starts PostgreSQL and PgBouncer (internal/localdb) and the targets
// as child processes (internal/supervise), drives k6 against them, samples what they use
// and records the BenchmarkRun's status; internal/report renders the result.
package local
