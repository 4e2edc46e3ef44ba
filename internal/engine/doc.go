// Package engine decides a BenchmarkRun: each trial's transitions and deadlines, the
// searches' advance, what a trial's figures record, the result rows, the headline, the
// final phase, every condition and its reason, and whether the answer is conclusive. It
// holds no Kubernetes client and starts no process: the operator (TestRuns, Prometheus,
// the wire agents) and the local mode (processes, cgroups, /proc) each execute a trial and
// report what they saw, and the engine writes BenchmarkRun.status from it, so one document
// gets one answer in both modes.
package engine
