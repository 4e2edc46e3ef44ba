package v1alpha1

// Measurement is the raw result of one trial.
type Measurement struct {
	Requests int64 `json:"requests"`
	// AchievedMilliRPS is requests in the measured window / its length, times 1000.
	AchievedMilliRPS int64 `json:"achievedMilliRPS"`
	P50Micros        int64 `json:"p50Micros"`
	P90Micros        int64 `json:"p90Micros"`
	P95Micros        int64 `json:"p95Micros"`
	P99Micros        int64 `json:"p99Micros"`
	P999Micros       int64 `json:"p999Micros"`
	MaxMicros        int64 `json:"maxMicros"`
	Errors           int64 `json:"errors"`
	// ErrorRatePPM is failed requests per million requests.
	ErrorRatePPM      int64 `json:"errorRatePPM"`
	DroppedIterations int64 `json:"droppedIterations"`
	// CPU of the target, mean and peak over the window, in millicores.
	// +optional
	CPUMillicores int64 `json:"cpuMillicores,omitempty"`
	// +optional
	CPUPeakMillicores int64 `json:"cpuPeakMillicores,omitempty"`
	// Memory of the target (PSS of its process tree locally, working set in a cluster).
	// +optional
	MemoryBytes int64 `json:"memoryBytes,omitempty"`
	// +optional
	MemoryPeakBytes int64 `json:"memoryPeakBytes,omitempty"`
	// CPUPeriods and CPUThrottledPeriods count the CFS periods of the window in which the
	// target ran and in which it spent its CPU quota and waited: its cgroup's counters
	// locally; cAdvisor's container_cpu_cfs_* in a cluster, extrapolated by increase() to the
	// interval read (the window, or wider when cAdvisor's samples were sparse), so their
	// ratio is the figure to compare. Absent without a CPU limit.
	// +optional
	CPUPeriods int64 `json:"cpuPeriods,omitempty"`
	// +optional
	CPUThrottledPeriods int64 `json:"cpuThrottledPeriods,omitempty"`
	// SharedNodes are the nodes on which one of the trial's k6 runners ran beside a pod of
	// its target (in a cluster): there the two shared the node's CPUs, so the target's
	// latency includes its waits for a CPU behind the generator. The local mode keeps them
	// on disjoint CPUs instead (status.placement). Absent when they ran apart.
	// +optional
	// +listType=set
	SharedNodes []string `json:"sharedNodes,omitempty"`
	// GeneratorCPUMillicores is the load generator's own mean CPU use over the window: the
	// busiest k6 runner's (cAdvisor) in a cluster, the k6 process's locally.
	// +optional
	GeneratorCPUMillicores int64 `json:"generatorCPUMillicores,omitempty"`
	// GeneratorCPULimitMillicores is the CPU that generator could use: its runner pod's CPU
	// limit in a cluster, the cores the local mode gave k6. GeneratorBound is judged against
	// it (results.GeneratorBoundPercent).
	// +optional
	GeneratorCPULimitMillicores int64 `json:"generatorCPULimitMillicores,omitempty"`
	// HostStealMillicores is the CPU time the hypervisor took from the trial's CPUs while
	// they wanted to run (steal, top's "st"), summed over them as a mean: locally over the
	// measured window on the target's and its k6's CPUs; in a cluster over the wire
	// capture (warmup and window) on every CPU of the target pods' nodes, as their wire
	// agents read it. HostCPUs is how many CPUs were read. A repetition whose steal passed
	// results.HostStealPercent of those CPUs' time is left out of comparisons that can
	// spare it. Absent where it was not read (HostCPUs 0).
	// +optional
	HostStealMillicores int64 `json:"hostStealMillicores,omitempty"`
	// +optional
	HostCPUs int32 `json:"hostCPUs,omitempty"`
	// Wire is the latency on the wire: the measured requests' packets on the target's port,
	// each request's first byte paired with its response's first byte, with no load
	// generator in it (local mode, when the capture is allowed). The latency fields above
	// are k6's own timings.
	// +optional
	Wire *WireLatency `json:"wire,omitempty"`
}
