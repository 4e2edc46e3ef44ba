package specs

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/sizing"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
	"github.com/gauntlet-bench/gauntlet/loadgen"
)

// PlanKey is the plan's key in a trial's ConfigMap, next to the script (loadgen.ScriptName).
const PlanKey = "plan.json"

// planDir is where runners mount the plan; PLAN points at the file in it.
const planDir = "/etc/gauntlet"

// k6UID is the user of the grafana/k6 image (USER 12345 in its Dockerfile); setting it
// keeps runAsNonRoot verifiable for custom k6 images built with a named user.
const k6UID int64 = 12345

// starterUID is the user of k6-operator's starter image (USER 65532 in its
// Dockerfile.starter).
const starterUID int64 = 65532

// PlanTags are the tags of a trial's samples. The test id is the TestRun's name, unique in
// the namespace, so two runs with the same trial names never share Prometheus series.
func PlanTags(run *benchv1.BenchmarkRun, t plan.Trial) workload.Tags {
	return workload.Tags{
		TestID:     TestID(run, t.Name),
		Target:     t.Target,
		Scenario:   t.Scenario,
		LoadPoint:  strconv.Itoa(int(t.LoadPoint)),
		Repetition: strconv.Itoa(int(t.Repetition)),
		Runner:     "0",
	}
}

// TestID is the testid tag of a trial's k6 samples: its TestRun's name and the start of the
// run's UID. Prometheus keeps series for weeks, and a run deleted and created again under the
// same name plans the same TestRun names: by name alone, its trials would read the old
// run's samples too (seen in the lab: "2 runners wrote series, want 1").
func TestID(run *benchv1.BenchmarkRun, trial string) string {
	uid := strings.ReplaceAll(string(run.UID), "-", "")
	return TrialName(run, trial) + "-" + uid[:min(len(uid), 8)]
}

// PlanConfigMap holds what a trial's k6 runs: the static script and the trial's plan.
func PlanConfigMap(run *benchv1.BenchmarkRun, t plan.Trial, p workload.Plan) *corev1.ConfigMap {
	// A Plan holds strings, integers and a string map: marshalling it cannot fail.
	data, err := json.Marshal(p)
	if err != nil {
		panic(fmt.Sprintf("marshalling a workload.Plan: %v", err))
	}
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: withLabels(objectMeta(run, TrialName(run, t.Name), AppLoadgen), trialLabels(run, t)),
		Data:       map[string]string{loadgen.ScriptName: string(loadgen.Script), PlanKey: string(data)},
	}
}

func trialLabels(run *benchv1.BenchmarkRun, t plan.Trial) map[string]string {
	l := labels(run, AppLoadgen, TrialName(run, t.Name))
	l[LabelTrial] = LabelValue(t.Name)
	l[LabelTarget] = t.Target
	return l
}

// TestRun is the k6-operator TestRun of a trial, unstructured because k6-operator's Go
// module cannot be fetched here; the fields are those of its CRD (k6.io/v1alpha1), mirrored
// in testRun below and in test/crds/k6-operator.
func TestRun(run *benchv1.BenchmarkRun, t plan.Trial, p workload.Plan, cfg Config) *unstructured.Unstructured {
	name := TrialName(run, t.Name)
	lg := run.Spec.LoadGenerator
	image := lg.Image
	if image == "" {
		image = cfg.K6Image
	}
	pool := run.Spec.Pool(lg.NodePool)
	// A run's own k6 image is pulled every time, as bring-your-own targets are (see
	// TargetDeployment): a node's cache must not lend one tenant's private image to another.
	var pull corev1.PullPolicy
	if lg.Image != "" {
		pull = corev1.PullAlways
	}
	size, err := sizing.Runners(run, t.LoadPoint)
	if err != nil {
		// The accept phase refuses a spec that cannot be sized (sizing.LoadGenerator), so no
		// trial of it gets here; the spec's own figures stand in.
		size = sizing.Choice{Runners: max(lg.Parallelism, 1), RunnerMillicores: sizing.RunnerMillicores(lg)}
	}
	resources := guaranteed(lg.Resources)
	cpu := *resource.NewMilliQuantity(size.RunnerMillicores, resource.DecimalSI)
	resources.Requests[corev1.ResourceCPU], resources.Limits[corev1.ResourceCPU] = cpu, cpu.DeepCopy()
	pod := k6Pod{
		Image:            image,
		ImagePullPolicy:  pull,
		ImagePullSecrets: PullSecrets(run),
		Metadata: k6PodMetadata{Labels: map[string]string{
			LabelName: AppLoadgen, LabelPartOf: "gauntlet", LabelRun: LabelValue(run.Name), LabelTrial: LabelValue(t.Name),
		}},
		// Runners never talk to the API server.
		AutomountServiceAccountToken: "false",
		Env: []corev1.EnvVar{
			{Name: "PLAN", Value: planDir + "/" + PlanKey},
			{Name: "K6_PROMETHEUS_RW_SERVER_URL", Value: cfg.PrometheusRemoteWriteURL},
			// Native histograms: exact enough percentiles from the final cumulative series.
			{Name: "K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM", Value: "true"},
			{Name: workload.RunnerEnv, ValueFrom: &corev1.EnvVarSource{
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"},
			}},
		},
		NodeSelector:    pool.NodeSelector,
		Tolerations:     tolerations(pool.Tolerations),
		Resources:       resources,
		SecurityContext: restrictedPod(k6UID),
		ContainerSecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
		Volumes: []corev1.Volume{{Name: "gauntlet-plan", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: name},
			Items:                []corev1.KeyToPath{{Key: PlanKey, Path: PlanKey}},
		}}}},
		VolumeMounts: []corev1.VolumeMount{{Name: "gauntlet-plan", MountPath: planDir, ReadOnly: true}},
	}
	initializer := pod
	// k6-operator's starter pod (curl against the runners) would otherwise run with no
	// security context, which a namespace enforcing the restricted standard refuses (the
	// trial then never starts), and wherever the scheduler puts it, a target's node included.
	starter := k6StarterPod{
		Metadata:                     pod.Metadata,
		ImagePullSecrets:             pod.ImagePullSecrets,
		AutomountServiceAccountToken: "false",
		NodeSelector:                 pod.NodeSelector,
		Tolerations:                  pod.Tolerations,
		SecurityContext:              restrictedPod(starterUID),
		ContainerSecurityContext:     pod.ContainerSecurityContext,
	}
	if cfg.K6StarterImage != "" {
		// k6-operator's default starter is a :latest tag, pulled Always; a configured one
		// (a mirror, or an image built on the node) is used as it is there.
		starter.Image, starter.ImagePullPolicy = cfg.K6StarterImage, corev1.PullIfNotPresent
	}
	tr := testRun{
		TypeMeta:   metav1.TypeMeta{APIVersion: "k6.io/v1alpha1", Kind: "TestRun"},
		ObjectMeta: withLabels(objectMeta(run, name, AppLoadgen), trialLabels(run, t)),
		Spec: testRunSpec{
			Parallelism: size.Runners,
			Script:      testRunScript{ConfigMap: testRunConfigMap{Name: name, File: loadgen.ScriptName}},
			Arguments:   k6Arguments(p.Tags),
			// The initializer evaluates the script's init code (k6 archive, k6 inspect),
			// which opens PLAN: it needs the same mount and environment as the runners.
			Initializer: &initializer,
			Runner:      pod,
			Starter:     starter,
		},
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&tr)
	if err != nil {
		panic(fmt.Sprintf("converting a TestRun to unstructured: %v", err)) // plain structs: cannot fail
	}
	return &unstructured.Unstructured{Object: obj}
}

// k6Arguments are the k6 run flags. Every plan tag is repeated as --tag: k6-operator adds
// --tag flags of its own (instance_id, testrun_name), and k6 lets command-line tags replace
// the script's options.tags as a whole (checked with k6 1.8.1), which would drop the plan's.
// The runner tag is the pod name, expanded by the kubelet from GAUNTLET_RUNNER, so parallel
// runners write separate series. k6-operator splits this string on spaces; tag values are
// DNS labels and integers.
func k6Arguments(tags map[string]string) string {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		if k != "runner" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	// k6-operator passes these flags (less --out and --no-usage-report) to the initializer's
	// `k6 archive`, which hides the environment from the script unless told: bench.js's init
	// code reads PLAN from it (found in the lab: "PLAN: set it to the path of the JSON plan").
	args := []string{"--out", "experimental-prometheus-rw", "--no-usage-report", "--include-system-env-vars"}
	for _, k := range keys {
		args = append(args, "--tag", k+"="+tags[k])
	}
	args = append(args, "--tag", "runner=$("+workload.RunnerEnv+")")
	return strings.Join(args, " ")
}

// testRun mirrors the part of k6-operator's TestRun (api/v1alpha1/testrun_types.go) that
// Gauntlet sets.
type testRun struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              testRunSpec `json:"spec"`
}

type testRunSpec struct {
	Parallelism int32         `json:"parallelism"`
	Script      testRunScript `json:"script"`
	Arguments   string        `json:"arguments,omitempty"`
	Initializer *k6Pod        `json:"initializer,omitempty"`
	Runner      k6Pod         `json:"runner"`
	Starter     k6StarterPod  `json:"starter"`
}

type testRunScript struct {
	ConfigMap testRunConfigMap `json:"configMap"`
}

type testRunConfigMap struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
}

// k6Pod mirrors k6-operator's Pod (the runner and initializer settings).
type k6Pod struct {
	Image                        string                        `json:"image,omitempty"`
	ImagePullPolicy              corev1.PullPolicy             `json:"imagePullPolicy,omitempty"`
	ImagePullSecrets             []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
	Metadata                     k6PodMetadata                 `json:"metadata,omitempty"`
	AutomountServiceAccountToken string                        `json:"automountServiceAccountToken,omitempty"`
	Env                          []corev1.EnvVar               `json:"env,omitempty"`
	NodeSelector                 map[string]string             `json:"nodeSelector,omitempty"`
	Tolerations                  []corev1.Toleration           `json:"tolerations,omitempty"`
	Resources                    corev1.ResourceRequirements   `json:"resources,omitempty"`
	SecurityContext              *corev1.PodSecurityContext    `json:"securityContext,omitempty"`
	ContainerSecurityContext     *corev1.SecurityContext       `json:"containerSecurityContext,omitempty"`
	Volumes                      []corev1.Volume               `json:"volumes,omitempty"`
	VolumeMounts                 []corev1.VolumeMount          `json:"volumeMounts,omitempty"`
}

// k6StarterPod is the part of k6-operator's Pod that its starter job reads (image, pull
// policy and secrets, metadata, placement, security contexts).
type k6StarterPod struct {
	Image                        string                        `json:"image,omitempty"`
	ImagePullPolicy              corev1.PullPolicy             `json:"imagePullPolicy,omitempty"`
	ImagePullSecrets             []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
	Metadata                     k6PodMetadata                 `json:"metadata,omitempty"`
	AutomountServiceAccountToken string                        `json:"automountServiceAccountToken,omitempty"`
	NodeSelector                 map[string]string             `json:"nodeSelector,omitempty"`
	Tolerations                  []corev1.Toleration           `json:"tolerations,omitempty"`
	SecurityContext              *corev1.PodSecurityContext    `json:"securityContext,omitempty"`
	ContainerSecurityContext     *corev1.SecurityContext       `json:"containerSecurityContext,omitempty"`
}

type k6PodMetadata struct {
	Labels map[string]string `json:"labels,omitempty"`
}
