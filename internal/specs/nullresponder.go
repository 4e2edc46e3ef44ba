package specs

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"strconv"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

func itoa(v int32) string { return strconv.Itoa(int(v)) }

// AppNullResponder labels the null responder: the generator floor's target.
const AppNullResponder = "gauntlet-null-responder"

// NullResponderName names the null responder's Deployment and Service on a node pool ("" for
// targets with no pool).
func NullResponderName(run *benchv1.BenchmarkRun, pool string) string {
	if pool == "" {
		return objectName(MaxNameLength, kindNull, run.Name, "null")
	}
	return objectName(MaxNameLength, kindNull, run.Name, "null", pool)
}

// NullResponderBaseURL is where the calibration trials of a node pool send their load.
func NullResponderBaseURL(run *benchv1.BenchmarkRun, pool string) string {
	return "http://" + NullResponderName(run, pool) + "." + run.Namespace + ".svc:" + itoa(PresetPort)
}

func nullResponderSelector(run *benchv1.BenchmarkRun, pool string) map[string]string {
	return map[string]string{LabelName: AppNullResponder, LabelInstance: NullResponderName(run, pool)}
}

// NullResponderDeployment runs `gauntlet null-responder` (the operator's image ships the
// CLI) on a targets' node pool, so the generator floor crosses the same network path as the
// targets' load. Guaranteed QoS with nullResponderCPU, the restricted pod security of the
// targets.
func NullResponderDeployment(run *benchv1.BenchmarkRun, pool string, cfg Config) *appsv1.Deployment {
	name := NullResponderName(run, pool)
	np := run.Spec.Pool(pool)
	probe := &corev1.Probe{
		ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
		PeriodSeconds: 2, TimeoutSeconds: 2, FailureThreshold: 3, SuccessThreshold: 1,
	}
	res := corev1.ResourceList{corev1.ResourceCPU: nullResponderCPU(run, pool), corev1.ResourceMemory: resource.MustParse("64Mi")}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: objectMeta(run, name, AppNullResponder),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: nullResponderSelector(run, pool)},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels(run, AppNullResponder, name)},
				Spec: corev1.PodSpec{
					AutomountServiceAccountToken:  ptr.To(false),
					EnableServiceLinks:            ptr.To(false),
					TerminationGracePeriodSeconds: ptr.To[int64](5),
					NodeSelector:                  np.NodeSelector,
					Tolerations:                   tolerations(np.Tolerations),
					SecurityContext:               restrictedPod(targetUID),
					ImagePullSecrets:              PullSecrets(run),
					Containers: []corev1.Container{{
						Name:            "null-responder",
						Image:           cfg.NullResponderImage,
						ImagePullPolicy: corev1.PullIfNotPresent,
						Command:         []string{"/gauntlet", "null-responder", "--listen", ":" + itoa(PresetPort)},
						Ports:           []corev1.ContainerPort{{Name: "http", ContainerPort: PresetPort, Protocol: corev1.ProtocolTCP}},
						Resources:       corev1.ResourceRequirements{Requests: res, Limits: res.DeepCopy()},
						ReadinessProbe:  probe,
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							ReadOnlyRootFilesystem:   ptr.To(true),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
				},
			},
		},
	}
}

// NullResponderService exposes the null responder under its Deployment's name.
func NullResponderService(run *benchv1.BenchmarkRun, pool string) *corev1.Service {
	name := NullResponderName(run, pool)
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: objectMeta(run, name, AppNullResponder),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: nullResponderSelector(run, pool),
			Ports:    []corev1.ServicePort{{Name: "http", Port: PresetPort, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}},
		},
	}
}

// nullResponderCPU is the largest CPU of the pool's targets, at most one CPU: answering
// without work, it is never the bottleneck of a load those targets are given, and it
// schedules on nodes sized for them (one whole CPU would not fit a small cluster's node).
func nullResponderCPU(run *benchv1.BenchmarkRun, pool string) resource.Quantity {
	most, largest := resource.MustParse("1"), resource.Quantity{}
	for _, t := range run.Spec.Targets {
		if t.NodePool != pool {
			continue
		}
		cpu := most // the schema's default when unset
		if t.Resources.CPU != nil {
			cpu = *t.Resources.CPU
		}
		if cpu.Cmp(largest) > 0 {
			largest = cpu
		}
	}
	if largest.IsZero() || largest.Cmp(most) > 0 {
		return most
	}
	return largest.DeepCopy()
}
