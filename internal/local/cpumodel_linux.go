package local

import "github.com/prometheus/procfs"

// cpuModel is /proc/cpuinfo's first model name and its CPU count.
func cpuModel() (string, int32) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return "", 0
	}
	cpus, err := fs.CPUInfo()
	if err != nil || len(cpus) == 0 {
		return "", 0
	}
	return cpus[0].ModelName, int32(len(cpus))
}
