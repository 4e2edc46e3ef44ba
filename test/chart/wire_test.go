package chart

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// TestWireAgentRendering: off by default (no agent, no flag, no projected token); on, one
// DaemonSet on the host network whose only capability is NET_RAW, serving HTTPS with the
// TLS Secret's serving pair (not its CA key) and admitting only the manager's service
// account, under a service account of its own that may create TokenReviews and nothing
// else; a NetworkPolicy admitting only the manager's pods to its port; a Role for the TLS
// Secret alone; the manager presenting a projected token for the agents' audience, and
// its flags pointing at exactly those pods. Every object passes kubeconform.
func TestWireAgentRendering(t *testing.T) {
	off, err := helm(t, "template", "gauntlet", chartDir, "--namespace", "bench")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(off, "wire-agent") {
		t.Error("wireCapture.enabled defaults to false, yet the chart renders the wire agent or its flags")
	}

	on, err := helm(t, "template", "gauntlet", chartDir, "--namespace", "bench", "--set", "wireCapture.enabled=true",
		"--set", "wireCapture.port=9555")
	if err != nil {
		t.Fatal(err)
	}
	kinds := kubeconform(t, on)
	objs := decode(t, on)
	if kinds["DaemonSet"] != 1 || kinds["NetworkPolicy"] != 1 {
		t.Fatalf("kinds %v: want one DaemonSet and one NetworkPolicy", kinds)
	}
	var ds appsv1.DaemonSet
	var np networkingv1.NetworkPolicy
	var role rbacv1.Role
	var manager appsv1.Deployment
	var reviewRole rbacv1.ClusterRole
	var reviewBinding rbacv1.ClusterRoleBinding
	for _, o := range objs {
		switch {
		case o.Kind == "DaemonSet":
			mustUnmarshal(t, o.Raw, &ds)
		case o.Kind == "NetworkPolicy":
			mustUnmarshal(t, o.Raw, &np)
		case o.Kind == "Role" && strings.HasSuffix(o.Metadata.Name, "wire-agent-tls"):
			mustUnmarshal(t, o.Raw, &role)
		case o.Kind == "Deployment":
			mustUnmarshal(t, o.Raw, &manager)
		case o.Kind == "ClusterRole" && strings.HasSuffix(o.Metadata.Name, "wire-agent-tokenreview"):
			mustUnmarshal(t, o.Raw, &reviewRole)
		case o.Kind == "ClusterRoleBinding" && strings.HasSuffix(o.Metadata.Name, "wire-agent-tokenreview"):
			mustUnmarshal(t, o.Raw, &reviewBinding)
		}
	}
	pod := ds.Spec.Template.Spec
	managerSA := manager.Spec.Template.Spec.ServiceAccountName
	// The agent's own identity, for its TokenReviews: not the manager's, not the default.
	if !pod.HostNetwork || len(pod.Containers) != 1 || pod.ServiceAccountName == "" || pod.ServiceAccountName == managerSA ||
		pod.ServiceAccountName == "default" || pod.AutomountServiceAccountToken == nil || !*pod.AutomountServiceAccountToken {
		t.Fatalf("agent pod: hostNetwork %v, %d containers, service account %q (manager's %q), automount %v",
			pod.HostNetwork, len(pod.Containers), pod.ServiceAccountName, managerSA, pod.AutomountServiceAccountToken)
	}
	if len(reviewRole.Rules) != 1 || !slices.Equal(reviewRole.Rules[0].APIGroups, []string{"authentication.k8s.io"}) ||
		!slices.Equal(reviewRole.Rules[0].Resources, []string{"tokenreviews"}) || !slices.Equal(reviewRole.Rules[0].Verbs, []string{"create"}) ||
		reviewBinding.RoleRef.Kind != "ClusterRole" || reviewBinding.RoleRef.Name != reviewRole.Name || len(reviewBinding.Subjects) != 1 ||
		reviewBinding.Subjects[0].Name != pod.ServiceAccountName || reviewBinding.Subjects[0].Namespace != "bench" {
		t.Errorf("TokenReview RBAC %+v bound by %+v: want create tokenreviews alone, for the agent's service account %s", reviewRole.Rules, reviewBinding, pod.ServiceAccountName)
	}
	c := pod.Containers[0]
	sc := c.SecurityContext
	if sc == nil || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Add, []corev1Capability{"NET_RAW"}) ||
		!slices.Equal(sc.Capabilities.Drop, []corev1Capability{"ALL"}) || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Privileged != nil && *sc.Privileged || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("agent container security %+v: want NET_RAW added, ALL dropped, no escalation, read-only root", sc)
	}
	if !slices.Equal(c.Command, []string{"/gauntlet", "wire-agent"}) || !slices.Contains(c.Args, "--listen=$(HOST_IP):9555") || c.Ports[0].ContainerPort != 9555 ||
		!slices.Contains(c.Args, "--caller=system:serviceaccount:bench:"+managerSA) ||
		!slices.Contains(c.Args, "--tls-cert-file=/var/run/gauntlet-wire/tls.crt") || !slices.Contains(c.Args, "--tls-key-file=/var/run/gauntlet-wire/tls.key") {
		t.Errorf("agent command %v args %v ports %+v: want the manager's service account the one caller, and the TLS pair", c.Command, c.Args, c.Ports)
	}
	if p := c.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Scheme != corev1.URISchemeHTTPS {
		t.Errorf("agent readiness probe %+v: want HTTPS, the only scheme it serves", p)
	}
	// The agent mounts the serving pair, never the CA's key.
	if len(pod.Volumes) != 1 || pod.Volumes[0].Secret == nil || pod.Volumes[0].Secret.SecretName != "gauntlet-wire-agent-tls" ||
		len(pod.Volumes[0].Secret.Items) != 2 || pod.Volumes[0].Secret.Items[0].Key != "tls.crt" || pod.Volumes[0].Secret.Items[1].Key != "tls.key" ||
		len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/var/run/gauntlet-wire" {
		t.Errorf("agent volumes %+v mounts %+v: want tls.crt and tls.key of gauntlet-wire-agent-tls at /var/run/gauntlet-wire", pod.Volumes, c.VolumeMounts)
	}
	// The manager's token for the agents: projected, for their audience alone, expiring.
	var projected *corev1.ServiceAccountTokenProjection
	for _, v := range manager.Spec.Template.Spec.Volumes {
		if v.Name == "wire-agent-token" && v.Projected != nil && len(v.Projected.Sources) == 1 {
			projected = v.Projected.Sources[0].ServiceAccountToken
		}
	}
	mc := manager.Spec.Template.Spec.Containers[0]
	if projected == nil || projected.Audience != "gauntlet-wire-agent" || projected.ExpirationSeconds == nil || *projected.ExpirationSeconds > 3600 ||
		projected.Path != "token" || !slices.ContainsFunc(mc.VolumeMounts, func(m corev1.VolumeMount) bool {
		return m.Name == "wire-agent-token" && m.MountPath == "/var/run/secrets/gauntlet-wire" && m.ReadOnly
	}) {
		t.Errorf("manager volumes %+v mounts %+v: want a projected token for audience gauntlet-wire-agent, at most an hour, at /var/run/secrets/gauntlet-wire",
			manager.Spec.Template.Spec.Volumes, mc.VolumeMounts)
	}
	// The agent listens on the node's own address, not on every host interface.
	if len(c.Env) != 1 || c.Env[0].Name != "HOST_IP" || c.Env[0].ValueFrom == nil || c.Env[0].ValueFrom.FieldRef == nil ||
		c.Env[0].ValueFrom.FieldRef.FieldPath != "status.hostIP" {
		t.Errorf("agent env %+v: want HOST_IP from status.hostIP", c.Env)
	}
	if !strings.HasPrefix(c.Image, "ghcr.io/gauntlet-bench/gauntlet:") {
		t.Errorf("agent image %s: want the manager's", c.Image)
	}
	agentLabels := ds.Spec.Template.Labels
	managerLabels := manager.Spec.Template.Labels
	if matches(manager.Spec.Selector.MatchLabels, agentLabels) || matches(ds.Spec.Selector.MatchLabels, managerLabels) {
		t.Errorf("manager and agent selectors overlap: %v / %v", manager.Spec.Selector.MatchLabels, ds.Spec.Selector.MatchLabels)
	}
	if !matches(np.Spec.PodSelector.MatchLabels, agentLabels) || len(np.Spec.Ingress) != 1 || len(np.Spec.Ingress[0].From) != 1 ||
		!matches(np.Spec.Ingress[0].From[0].PodSelector.MatchLabels, managerLabels) || np.Spec.Ingress[0].From[0].NamespaceSelector != nil ||
		np.Spec.Ingress[0].Ports[0].Port.IntValue() != 9555 {
		t.Errorf("NetworkPolicy %+v: want only the manager's pods admitted to 9555 on the agents", np.Spec)
	}
	for _, rule := range role.Rules {
		if !slices.Equal(rule.Resources, []string{"secrets"}) || slices.Contains(rule.Verbs, "list") || slices.Contains(rule.Verbs, "watch") ||
			(slices.Contains(rule.Verbs, "get") || slices.Contains(rule.Verbs, "update")) && !slices.Equal(rule.ResourceNames, []string{"gauntlet-wire-agent-tls"}) {
			t.Errorf("TLS Role rule %+v: want get and update on the TLS Secret alone, and create", rule)
		}
	}
	if len(role.Rules) != 2 {
		t.Errorf("TLS Role %+v", role.Rules)
	}
	args := managerArgs(t, objs)
	for _, want := range []string{"--wire-agent-namespace=bench", "--wire-agent-port=9555", "--wire-agent-tls-secret=gauntlet-wire-agent-tls",
		"--wire-agent-token-file=/var/run/secrets/gauntlet-wire/token"} {
		if !contains(args, want) {
			t.Errorf("manager args %v lack %s", args, want)
		}
	}
	var selector string
	for _, a := range args {
		if s, ok := strings.CutPrefix(a, "--wire-agent-selector="); ok {
			selector = s
		}
	}
	for _, kv := range strings.Split(selector, ",") {
		k, v, _ := strings.Cut(kv, "=")
		if agentLabels[k] != v {
			t.Errorf("--wire-agent-selector=%s does not select the agent pods (%v)", selector, agentLabels)
		}
	}
	if selector == "" || matches(selectorMap(selector), managerLabels) {
		t.Errorf("--wire-agent-selector=%q: empty or selects the manager", selector)
	}

	// A namespaced install: the manager's Role is in the watched namespace, and it still
	// lists the agents' pods in the release namespace.
	namespaced, err := helm(t, "template", "gauntlet", chartDir, "--namespace", "bench", "--set", "wireCapture.enabled=true",
		"--set", "watchNamespace=team-a")
	if err != nil {
		t.Fatal(err)
	}
	var podsRole rbacv1.Role
	var podsBinding rbacv1.RoleBinding
	for _, o := range decode(t, namespaced) {
		switch {
		case o.Kind == "Role" && strings.HasSuffix(o.Metadata.Name, "wire-agent-pods"):
			mustUnmarshal(t, o.Raw, &podsRole)
		case o.Kind == "RoleBinding" && strings.HasSuffix(o.Metadata.Name, "wire-agent-pods"):
			mustUnmarshal(t, o.Raw, &podsBinding)
		}
	}
	if podsRole.Namespace != "bench" || len(podsRole.Rules) != 1 || !slices.Equal(podsRole.Rules[0].Resources, []string{"pods"}) ||
		!slices.Equal(podsRole.Rules[0].Verbs, []string{"list"}) || podsBinding.Namespace != "bench" || podsBinding.RoleRef.Name != podsRole.Name ||
		len(podsBinding.Subjects) != 1 || podsBinding.Subjects[0].Name != manager.Spec.Template.Spec.ServiceAccountName {
		t.Errorf("namespaced install: agent pods Role %+v, binding %+v: want list pods in the release namespace for the manager", podsRole, podsBinding)
	}

	if _, err := helm(t, "template", "gauntlet", chartDir, "--set", "wireCapture.port=0"); err == nil ||
		!strings.Contains(err.Error(), "/wireCapture/port") {
		t.Errorf("wireCapture.port=0: want a schema error naming /wireCapture/port, got %v", err)
	}
}

type corev1Capability = corev1.Capability

func mustUnmarshal(t *testing.T, raw []byte, into any) {
	t.Helper()
	if err := yaml.Unmarshal(raw, into); err != nil {
		t.Fatal(err)
	}
}

// matches says whether selector selects an object with these labels.
func matches(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return len(selector) > 0
}

func selectorMap(s string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}
