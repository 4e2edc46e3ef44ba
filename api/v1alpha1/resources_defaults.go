package v1alpha1

import "k8s.io/apimachinery/pkg/api/resource"

// DefaultCPU and DefaultMemory are the schema's defaults for Resources: what a container
// gets when its spec names none, in a cluster (Guaranteed requests and limits) and in the
// local mode (its cgroup's limits). A spec with no resources object at all is not defaulted
// by the schema, so both read these.
const (
	DefaultCPU    = "1"
	DefaultMemory = "1Gi"
)

// CPUOrDefault is the CPU, or DefaultCPU when unset.
func (r Resources) CPUOrDefault() resource.Quantity {
	if r.CPU != nil {
		return r.CPU.DeepCopy()
	}
	return resource.MustParse(DefaultCPU)
}

// MemoryOrDefault is the memory, or DefaultMemory when unset.
func (r Resources) MemoryOrDefault() resource.Quantity {
	if r.Memory != nil {
		return r.Memory.DeepCopy()
	}
	return resource.MustParse(DefaultMemory)
}
