//go:build lab && labfull

package lab

import (
	"encoding/json"
	stderrors "errors"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

var prometheusGVR = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheuses"}

type checkLine struct{ Check, Status, Detail string }

// testCheck: gauntlet check against the lab as a user runs it before a first run. The lab's
// Prometheus passes every check; a second one made without the remote-write receiver is
// named for it and for nothing else; the lab's kubelet runs the CPU manager policy none (two
// cores cannot give targets whole cores), which the check names as a warning.
func (l *lab) testCheck(t *testing.T) {
	lines, code := l.check(t, l.podProxy(t, "prometheus-lab-0"))
	if code != 0 {
		t.Errorf("gauntlet check on the lab: exit status %d, want 0:\n%v", code, lines)
	}
	for _, name := range []string{"prometheus", "remote-write receiver", "native histograms", "cAdvisor series"} {
		if c := find(lines, name); c == nil || c.Status != "ok" {
			t.Errorf("gauntlet check on the lab: %s is %+v, want ok", name, c)
		}
	}
	if c := find(lines, "prometheus"); c != nil && !strings.Contains(c.Detail, "version 3.") {
		t.Errorf("the lab's Prometheus is %q, want Prometheus 3", c.Detail)
	}
	if c := find(lines, "cpu manager "+labNodeName); c == nil || c.Status != "warn" || !strings.Contains(c.Detail, "policy none") {
		t.Errorf("gauntlet check on the lab: cpu manager %+v, want a warning naming the policy none", c)
	}

	// The same Prometheus, the same discovery, without the receiver.
	bare := l.barePrometheus(t)
	var last []checkLine
	deadline := time.Now().Add(3 * time.Minute)
	for {
		last, code = l.check(t, l.podProxy(t, bare))
		if c := find(last, "cAdvisor series"); c != nil && c.Status == "ok" || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Second)
	}
	var missing []string
	for _, c := range last {
		if c.Status == "MISSING" {
			missing = append(missing, c.Check)
		}
	}
	if code != 1 || strings.Join(missing, ",") != "remote-write receiver" {
		t.Errorf("gauntlet check against a Prometheus without the receiver: exit status %d, missing %v, want 1 and only the receiver:\n%v", code, missing, last)
	}
	if c := find(last, "remote-write receiver"); c == nil || !strings.Contains(c.Detail, "enableRemoteWriteReceiver: true") {
		t.Errorf("the missing receiver's line %+v does not say what to set", c)
	}
}

// check runs gauntlet check (built by hack/lab/stack.sh) against the lab with the Prometheus
// at promURL and returns its lines and exit status.
func (l *lab) check(t *testing.T, promURL string) ([]checkLine, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(l.root, "bin/gauntlet"), "check", "--prometheus-url", promURL, "-o", "json")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(l.root, ".cache/lab/admin.kubeconfig"))
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !stderrors.As(err, &exit) {
		t.Fatal(err)
	}
	var lines []checkLine
	if err := json.Unmarshal(out, &lines); err != nil {
		t.Fatalf("gauntlet check -o json: %v\n%s", err, out)
	}
	t.Logf("gauntlet check --prometheus-url %s: exit status %d\n%s", promURL, cmd.ProcessState.ExitCode(), out)
	return lines, cmd.ProcessState.ExitCode()
}

func find(lines []checkLine, name string) *checkLine {
	for i := range lines {
		if lines[i].Check == name {
			return &lines[i]
		}
	}
	return nil
}

// podProxy serves a Prometheus pod of the monitoring namespace on a local URL, through the
// API server's proxy with the admin's credentials (the lab's pods are not routed from the
// host), as kubectl port-forward would for a user.
func (l *lab) podProxy(t *testing.T, pod string) string {
	t.Helper()
	rt, err := rest.TransportFor(l.cfg)
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(strings.TrimSuffix(l.cfg.Host, "/") + "/api/v1/namespaces/monitoring/pods/" + pod + ":9090/proxy")
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = rt
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv.URL
}

// barePrometheus starts a second Prometheus like the lab's but for the receiver, waits for its
// pod and removes it when the test ends (the prometheus-operated Service selects it too).
func (l *lab) barePrometheus(t *testing.T) string {
	t.Helper()
	lab, err := l.dyn.Resource(prometheusGVR).Namespace("monitoring").Get(ctx(t, time.Minute), "lab", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec, _, _ := unstructured.NestedMap(lab.Object, "spec")
	spec["enableRemoteWriteReceiver"] = false
	spec["resources"] = map[string]any{"requests": map[string]any{"cpu": "20m", "memory": "64Mi"}}
	bare := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "monitoring.coreos.com/v1", "kind": "Prometheus",
		"metadata": map[string]any{"name": "bare", "namespace": "monitoring"}, "spec": spec}}
	if _, err := l.dyn.Resource(prometheusGVR).Namespace("monitoring").Create(ctx(t, time.Minute), bare, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const pod = "prometheus-bare-0"
	t.Cleanup(func() {
		_ = l.dyn.Resource(prometheusGVR).Namespace("monitoring").Delete(ctx(t, time.Minute), "bare", metav1.DeleteOptions{})
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(2 * time.Second) {
			if _, err := l.client.CoreV1().Pods("monitoring").Get(ctx(t, time.Minute), pod, metav1.GetOptions{}); errors.IsNotFound(err) {
				return
			}
		}
		t.Errorf("%s still exists 2 minutes after its Prometheus was deleted", pod)
	})
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(2 * time.Second) {
		p, err := l.client.CoreV1().Pods("monitoring").Get(ctx(t, time.Minute), pod, metav1.GetOptions{})
		if err == nil && podReady(p) {
			return pod
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready after 3 minutes: %v %+v", pod, err, p)
		}
	}
}

// labNodeName is the lab's one node (LAB_NAME in hack/lab/env.sh).
const labNodeName = "gauntlet-lab"

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
