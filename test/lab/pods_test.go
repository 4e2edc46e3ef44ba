//go:build lab

package lab

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
)

// busyboxImage is built by hack/lab/images.sh (busybox-static from Debian).
const busyboxImage = "gauntlet.local/busybox:lab"

// restrictedNamespace creates a namespace enforcing the restricted Pod Security Standard,
// deleted when the test ends.
func (l *lab) restrictedNamespace(t *testing.T, name string) string {
	if _, err := l.client.CoreV1().Namespaces().Create(ctx(t, time.Minute), restrictedNS(name), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = l.client.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name
}

// restrictedNS is a namespace that enforces the restricted Pod Security Standard.
func restrictedNS(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		"pod-security.kubernetes.io/enforce": "restricted",
	}}}
}

// restricted is the security context the restricted standard asks of every container.
func restricted() (*corev1.PodSecurityContext, *corev1.SecurityContext) {
	return &corev1.PodSecurityContext{
			RunAsNonRoot:   ptr.To(true),
			RunAsUser:      ptr.To[int64](65532),
			RunAsGroup:     ptr.To[int64](65532),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		}, &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			ReadOnlyRootFilesystem:   ptr.To(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		}
}

// runPod runs a one-shot restricted pod and returns its phase and log once it has ended.
func (l *lab) runPod(t *testing.T, ns, name, image string, command []string, limit time.Duration) (corev1.PodPhase, string) {
	return l.runPodWith(t, ns, name, image, command, limit, nil)
}

// runPodWith is runPod with a last change to the pod (environment, volumes).
func (l *lab) runPodWith(t *testing.T, ns, name, image string, command []string, limit time.Duration, edit func(*corev1.Pod)) (corev1.PodPhase, string) {
	psc, sc := restricted()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PodSpec{
			RestartPolicy:   corev1.RestartPolicyNever,
			SecurityContext: psc,
			Containers: []corev1.Container{{
				Name: "main", Image: image, ImagePullPolicy: corev1.PullIfNotPresent,
				Command: command, SecurityContext: sc,
			}},
		},
	}
	if edit != nil {
		edit(pod)
	}
	c := ctx(t, limit)
	if _, err := l.client.CoreV1().Pods(ns).Create(c, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s/%s: %v", ns, name, err)
	}
	var phase corev1.PodPhase
	err := wait.PollUntilContextCancel(c, time.Second, true, func(c context.Context) (bool, error) {
		p, err := l.client.CoreV1().Pods(ns).Get(c, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		phase = p.Status.Phase
		return phase == corev1.PodSucceeded || phase == corev1.PodFailed, nil
	})
	log := l.podLog(ns, name)
	if err != nil {
		t.Fatalf("pod %s/%s still %s after %s: %s\nlog:\n%s", ns, name, phase, limit, l.podEvents(ns, name), log)
	}
	return phase, log
}

func (l *lab) podLog(ns, name string) string {
	raw, err := l.client.CoreV1().Pods(ns).GetLogs(name, &corev1.PodLogOptions{}).Do(context.Background()).Raw()
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	return string(raw)
}

func (l *lab) podEvents(ns, name string) string {
	evs, err := l.client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{
		FieldSelector: "involvedObject.name=" + name,
	})
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, e := range evs.Items {
		fmt.Fprintf(&b, "%s %s: %s\n", e.Type, e.Reason, e.Message)
	}
	return b.String()
}

// testRestrictedPod: in a namespace enforcing the restricted standard, a pod without the
// required security context is refused by the API server, and a compliant one runs to
// completion as its non-root user, resolving a Service name through the cluster DNS
// (CoreDNS behind a kube-proxy Service address).
func (l *lab) testRestrictedPod(t *testing.T) {
	ns := l.restrictedNamespace(t, "lab-restricted")

	loose := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "loose", Namespace: ns},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: busyboxImage}}},
	}
	_, err := l.client.CoreV1().Pods(ns).Create(ctx(t, time.Minute), loose, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "violates PodSecurity") {
		t.Errorf("a pod without a restricted security context: want a PodSecurity refusal, got %v", err)
	}

	phase, log := l.runPod(t, ns, "compliant", busyboxImage,
		[]string{"sh", "-c", "id -u && nslookup kubernetes.default.svc.cluster.local"}, 3*time.Minute)
	if phase != corev1.PodSucceeded {
		t.Fatalf("restricted pod ended %s:\n%s", phase, log)
	}
	if !strings.HasPrefix(log, "65532\n") {
		t.Errorf("pod ran as %q, want uid 65532", strings.SplitN(log, "\n", 2)[0])
	}
	if !strings.Contains(log, "10.239.16.1") {
		t.Errorf("kubernetes.default did not resolve to the API service address 10.239.16.1:\n%s", log)
	}
}
