package specs

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// postgresPort is where CloudNativePG's instances and PgBouncer pods listen.
const postgresPort = 5432

// NetworkPolicyName names the run's NetworkPolicy.
func NetworkPolicyName(run *benchv1.BenchmarkRun) string {
	return objectName(MaxNameLength, kindPolicy, run.Name, "targets")
}

// TargetNetworkPolicy fences a run's targets in. A target may run a bring-your-own image,
// so it is treated as untrusted: it is reached only on its ports, from the run's own k6
// runners, the operator (which verifies it) and Prometheus; it reaches only its database
// (the Pooler's pods, or the instances with connectVia: Direct) and DNS. Nothing else in
// the cluster (the API server, cloud metadata, other tenants) is reachable from it.
func TargetNetworkPolicy(run *benchv1.BenchmarkRun, cfg Config) *networkingv1.NetworkPolicy {
	np := cfg.NetworkPolicy
	tcp, udp := corev1.ProtocolTCP, corev1.ProtocolUDP
	port := func(p int32, proto *corev1.Protocol) networkingv1.NetworkPolicyPort {
		v := intstr.FromInt32(p)
		return networkingv1.NetworkPolicyPort{Protocol: proto, Port: &v}
	}
	var ports []int32
	seen := map[int32]bool{}
	for _, t := range run.Spec.Targets {
		if p := TargetPort(t); !seen[p] {
			seen[p] = true
			ports = append(ports, p)
		}
	}
	sort.Slice(ports, func(i, j int) bool { return ports[i] < ports[j] })
	targetPorts := make([]networkingv1.NetworkPolicyPort, 0, len(ports))
	for _, p := range ports {
		targetPorts = append(targetPorts, port(p, &tcp))
	}
	inNamespace := func(ns string, pods map[string]string) networkingv1.NetworkPolicyPeer {
		return networkingv1.NetworkPolicyPeer{
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
			PodSelector:       &metav1.LabelSelector{MatchLabels: pods},
		}
	}
	from := []networkingv1.NetworkPolicyPeer{
		// The run's runners (labelled through the TestRun's runner metadata), same namespace.
		{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{LabelName: AppLoadgen, LabelRun: LabelValue(run.Name)}}},
		inNamespace(np.OperatorNamespace, np.OperatorPodLabels),
		inNamespace(np.PrometheusNamespace, np.PrometheusPodLabels),
	}
	egress := []networkingv1.NetworkPolicyEgressRule{{
		// DNS, to the cluster's DNS pods only: port 53 of any pod would be a way out.
		To:    []networkingv1.NetworkPolicyPeer{inNamespace(np.DNSNamespace, np.DNSPodLabels)},
		Ports: []networkingv1.NetworkPolicyPort{port(53, &udp), port(53, &tcp)},
	}}
	if db := run.Spec.Database; db != nil {
		// CloudNativePG's labels on its instance and PgBouncer pods.
		dbPods := map[string]string{"cnpg.io/poolerName": PoolerName(run)}
		if db.ConnectVia == benchv1.ConnectViaDirect {
			dbPods = map[string]string{"cnpg.io/cluster": ClusterName(run)}
		}
		egress = append(egress, networkingv1.NetworkPolicyEgressRule{
			To:    []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: dbPods}}},
			Ports: []networkingv1.NetworkPolicyPort{port(postgresPort, &tcp)},
		})
	}
	name := NetworkPolicyName(run)
	return &networkingv1.NetworkPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"},
		ObjectMeta: objectMeta(run, name, AppTarget),
		Spec: networkingv1.NetworkPolicySpec{
			// Every target pod of this run (and no other run's).
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{LabelName: AppTarget, LabelRun: LabelValue(run.Name)}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
			Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: from, Ports: targetPorts}},
			Egress:      egress,
		},
	}
}
