package controllers

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// Node feature discovery's CPU labels, where a cluster runs it: the kubelet reports no CPU
// model of its own.
const (
	nfdCPUVendor = "feature.node.kubernetes.io/cpu-model.vendor_id"
	nfdCPUFamily = "feature.node.kubernetes.io/cpu-model.family"
	nfdCPUID     = "feature.node.kubernetes.io/cpu-model.id"
)

// +kubebuilder:rbac:groups="",resources=nodes,verbs=get

// recordEnvironment fingerprints what the run measured on, once, as its trials end: the
// nodes its target and runner pods ran on (instance type, architecture, CPUs, kernel, OS,
// container runtime, kubelet), and each target's image with the digest the runtime
// reported. A comparison across two fingerprints is flagged (internal/compare). A node the
// manager may not read (a namespaced install) is recorded by name alone.
func (r *BenchmarkRunReconciler) recordEnvironment(ctx context.Context, run *benchv1.BenchmarkRun) error {
	if run.Status.Environment != nil {
		return nil
	}
	env := &benchv1.Environment{Mode: "Cluster"}
	roles := map[string]string{}
	var order []string
	place := func(node, role string) {
		switch prev, seen := roles[node]; {
		case !seen:
			roles[node] = role
			order = append(order, node)
		case prev != role:
			roles[node] = "Both"
		}
	}
	for _, t := range run.Spec.Targets {
		pods, _, err := r.targetPods(ctx, run, &benchv1.Trial{Target: t.Name})
		if err != nil {
			continue // a target with no running pod left: nothing to describe
		}
		for _, p := range pods {
			place(p.Spec.NodeName, "Targets")
		}
		env.Images = appendImage(env.Images, t.Name, pods[0])
	}
	runners := &corev1.PodList{}
	if err := r.APIReader.List(ctx, runners, client.InNamespace(run.Namespace),
		client.MatchingLabels{specs.LabelName: specs.AppLoadgen, specs.LabelRun: specs.LabelValue(run.Name)}); err != nil {
		return err
	}
	for _, p := range runners.Items {
		if p.Spec.NodeName != "" {
			place(p.Spec.NodeName, "Generator")
		}
	}
	for _, name := range order {
		n, err := r.nodeFingerprint(ctx, name)
		if err != nil {
			return err
		}
		n.Role = roles[name]
		if len(env.Nodes) < 32 {
			env.Nodes = append(env.Nodes, n)
		}
	}
	run.Status.Environment = env
	return nil
}

func appendImage(images []benchv1.ImageFingerprint, target string, p corev1.Pod) []benchv1.ImageFingerprint {
	fp := benchv1.ImageFingerprint{Target: target}
	for _, c := range p.Status.ContainerStatuses {
		if c.Name == "target" {
			fp.Image, fp.Digest = c.Image, c.ImageID
		}
	}
	if fp.Image == "" && len(p.Spec.Containers) > 0 {
		fp.Image = p.Spec.Containers[0].Image
	}
	if len(images) >= 32 {
		return images
	}
	return append(images, fp)
}

func (r *BenchmarkRunReconciler) nodeFingerprint(ctx context.Context, name string) (benchv1.NodeFingerprint, error) {
	fp := benchv1.NodeFingerprint{Name: name}
	n := &corev1.Node{}
	if err := r.APIReader.Get(ctx, client.ObjectKey{Name: name}, n); err != nil {
		if apierrors.IsForbidden(err) || apierrors.IsNotFound(err) {
			return fp, nil
		}
		return fp, err
	}
	info := n.Status.NodeInfo
	fp.InstanceType = n.Labels[corev1.LabelInstanceTypeStable]
	fp.Architecture, fp.Kernel, fp.OSImage = info.Architecture, info.KernelVersion, info.OSImage
	fp.ContainerRuntime, fp.Kubelet = info.ContainerRuntimeVersion, info.KubeletVersion
	if cpu, ok := n.Status.Capacity[corev1.ResourceCPU]; ok {
		fp.CPUs = int32(cpu.Value())
	}
	if v := n.Labels[nfdCPUVendor]; v != "" {
		fp.CPUModel = strings.TrimSpace(v + " family " + n.Labels[nfdCPUFamily] + " model " + n.Labels[nfdCPUID])
	}
	return fp, nil
}
