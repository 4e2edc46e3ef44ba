package compare

import (
	"fmt"
	"slices"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// EnvironmentDiff says how two runs' environments differ in what changes a measurement:
// the mode, the machines' instance type, CPU model, CPU count, architecture and kernel, the
// container runtime and kubelet, and each target's runtime and image digest. Node names are
// not compared (a rescheduled pool has new names and the same machines), nor is the API
// server's version (the control plane serves no request). Empty when either run records no
// environment: an older run cannot be told apart, and is not held against the new one.
func EnvironmentDiff(base, cur *benchv1.Environment) []string {
	if base == nil || cur == nil {
		return nil
	}
	var out []string
	differ := func(what, a, b string) {
		if a != b {
			out = append(out, fmt.Sprintf("%s %s → %s", what, orNone(a), orNone(b)))
		}
	}
	differ("mode", base.Mode, cur.Mode)
	for _, role := range []string{"Targets", "Generator", "Both"} {
		a, b := machines(base.Nodes, role), machines(cur.Nodes, role)
		if a != b {
			out = append(out, fmt.Sprintf("%s' machines %s → %s", strings.ToLower(role), orNone(a), orNone(b)))
		}
	}
	for _, img := range cur.Images {
		for _, old := range base.Images {
			if old.Target != img.Target {
				continue
			}
			differ(img.Target+"'s runtime", old.Runtime, img.Runtime)
			if old.Digest != "" && img.Digest != "" {
				differ(img.Target+"'s image", short(old.Digest), short(img.Digest))
			}
		}
	}
	return out
}

// EnvironmentKey is an environment in one line, empty for none: two runs whose keys differ
// differ in what EnvironmentDiff compares. A schedule's history keeps it per run.
func EnvironmentKey(e *benchv1.Environment) string {
	if e == nil {
		return ""
	}
	parts := []string{e.Mode}
	for _, role := range []string{"Targets", "Generator", "Both"} {
		if m := machines(e.Nodes, role); m != "" {
			parts = append(parts, strings.ToLower(role)+": "+m)
		}
	}
	for _, img := range e.Images {
		parts = append(parts, strings.TrimSpace(img.Target+" "+img.Runtime+" "+short(img.Digest)))
	}
	return strings.Join(parts, "; ")
}

// machines describes the distinct machines of a role, sorted: "c7g.xlarge Neoverse-V1 4 CPUs
// arm64 linux 6.1".
func machines(nodes []benchv1.NodeFingerprint, role string) string {
	var kinds []string
	for _, n := range nodes {
		if n.Role != role {
			continue
		}
		k := strings.Join(strings.Fields(fmt.Sprintf("%s %s %d CPUs %s kernel %s %s %s", n.InstanceType, n.CPUModel, n.CPUs,
			n.Architecture, n.Kernel, n.ContainerRuntime, n.Kubelet)), " ")
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	return strings.Join(kinds, " + ")
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// short is a digest's first 12 hex characters, as container tools print it.
func short(digest string) string {
	if i := strings.LastIndexByte(digest, ':'); i >= 0 && len(digest) > i+13 {
		return digest[i+1 : i+13]
	}
	return digest
}
