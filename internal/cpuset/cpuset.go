// Package cpuset gives the load generator and the processes under load disjoint CPUs, so
// that on a small machine k6 does not time requests on the core the target is using.
package cpuset

import "k8s.io/utils/cpuset"

// Split divides the CPUs between the generator (the first half, at least one) and the
// target side (the rest). With fewer than two CPUs both get all of them, and shared is true.
func Split(cpus []int) (generator, target []int, shared bool) {
	if len(cpus) < 2 {
		return cpus, cpus, true
	}
	half := len(cpus) / 2
	return cpus[:half], cpus[half:], false
}

// Format writes a CPU list the way the kernel does: "0-3,6".
func Format(cpus []int) string { return cpuset.New(cpus...).String() }

// Divide gives each of n arms a disjoint share of cpus, as many CPUs each, in order (a CPU
// left over goes unused, so no arm has more than another). ok is false when there are fewer
// CPUs than arms: they cannot each have one of their own.
func Divide(cpus []int, n int) (shares [][]int, ok bool) {
	if n < 1 || len(cpus) < n {
		return nil, false
	}
	each := len(cpus) / n
	for i := range n {
		shares = append(shares, cpus[i*each:(i+1)*each])
	}
	return shares, true
}
