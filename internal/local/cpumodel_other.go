//go:build !linux

package local

import "runtime"

// cpuModel: procfs reads /proc/cpuinfo on Linux only; elsewhere (the CLI's darwin build,
// which never runs a local benchmark) the count is all that is known.
func cpuModel() (string, int32) { return "", int32(runtime.NumCPU()) }
