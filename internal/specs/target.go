package specs

import (
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// PresetPort is where every preset listens: the contract's default PORT, which their
// Dockerfiles expose.
const PresetPort int32 = 8080

// targetUID runs every target as one fixed non-root user. The images declare different
// users (distroless's named "nonroot" among them, which the kubelet cannot verify as
// non-root), and their files are root-owned and world-readable, so any uid can run them.
const targetUID int64 = 1000

// TargetPort is the port a target listens on and its Service exposes.
func TargetPort(t benchv1.Target) int32 {
	if t.Port != nil {
		return *t.Port
	}
	return PresetPort
}

// TargetImage is the image a target runs: its own, or its preset's from the configuration.
func TargetImage(t benchv1.Target, cfg Config) (string, error) {
	if t.Image != "" {
		return t.Image, nil
	}
	image, ok := cfg.Images[t.Preset]
	if !ok || image == "" {
		return "", fmt.Errorf("target %s: no image configured for preset %q", t.Name, t.Preset)
	}
	return image, nil
}

// TargetBaseURL is the URL k6 sends a target's load to, through its Service.
func TargetBaseURL(run *benchv1.BenchmarkRun, t benchv1.Target) string {
	return fmt.Sprintf("http://%s.%s.svc:%d", TargetName(run, t.Name), run.Namespace, TargetPort(t))
}

func targetLabels(run *benchv1.BenchmarkRun, t benchv1.Target) map[string]string {
	l := labels(run, AppTarget, TargetName(run, t.Name))
	l[LabelTarget] = t.Name
	return l
}

// targetSelector picks a target's pods: its name and instance, unique in the namespace.
func targetSelector(run *benchv1.BenchmarkRun, t benchv1.Target) map[string]string {
	return map[string]string{LabelName: AppTarget, LabelInstance: TargetName(run, t.Name)}
}

// TargetDeployment runs one target: one Guaranteed-QoS pod on the target's node pool.
// An unknown preset leaves the image empty, which the API server refuses; check
// TargetImage first to report it better.
func TargetDeployment(run *benchv1.BenchmarkRun, t benchv1.Target, cfg Config) *appsv1.Deployment {
	image, _ := TargetImage(t, cfg)
	name := TargetName(run, t.Name)
	probe := func(period, timeout, failures int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Path: "/healthz", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP,
			}},
			PeriodSeconds: period, TimeoutSeconds: timeout, FailureThreshold: failures, SuccessThreshold: 1,
		}
	}
	pool := run.Spec.Pool(t.NodePool)
	// A preset's image is the operator's own (public, or pulled with the operator's
	// configuration). A bring-your-own image is pulled on every start: with IfNotPresent a
	// node that cached another tenant's private image would hand it to any pod naming it,
	// without checking that pod's pull credentials.
	pull := corev1.PullIfNotPresent
	if t.Image != "" {
		pull = corev1.PullAlways
	}
	mounts := []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}}
	// The only writable place (nginx keeps its prefix there).
	volumes := []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	if run.Spec.Database != nil {
		mounts = append(mounts, corev1.VolumeMount{Name: "db-ca", MountPath: dbCADir, ReadOnly: true})
		volumes = append(volumes, databaseCAVolume(run))
	}

	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: withLabels(objectMeta(run, name, AppTarget), targetLabels(run, t)),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: targetSelector(run, t)},
			// Recreate: never two pods of one target sharing CPU during a measurement.
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: targetLabels(run, t)},
				Spec: corev1.PodSpec{
					// A target needs no API access and no service links in its environment:
					// the contract's variables are all it reads.
					AutomountServiceAccountToken:  ptr.To(false),
					EnableServiceLinks:            ptr.To(false),
					TerminationGracePeriodSeconds: ptr.To[int64](15),
					NodeSelector:                  pool.NodeSelector,
					Tolerations:                   tolerations(pool.Tolerations),
					SecurityContext:               restrictedPod(targetUID),
					ImagePullSecrets:              PullSecrets(run),
					Containers: []corev1.Container{{
						Name:            "target",
						Image:           image,
						ImagePullPolicy: pull,
						Ports:           []corev1.ContainerPort{{Name: "http", ContainerPort: TargetPort(t), Protocol: corev1.ProtocolTCP}},
						Env:             targetEnv(run, t),
						Resources:       guaranteed(t.Resources),
						// Lenient on purpose: a target saturated by the load answers slowly,
						// and restarting it would spoil the measurement it is part of.
						ReadinessProbe: probe(2, 2, 3),
						LivenessProbe:  probe(10, 5, 6),
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							ReadOnlyRootFilesystem:   ptr.To(true),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
						VolumeMounts: mounts,
					}},
					Volumes: volumes,
				},
			},
		},
	}
}

// TargetService exposes a target inside the cluster under its Deployment's name.
func TargetService(run *benchv1.BenchmarkRun, t benchv1.Target) *corev1.Service {
	name := TargetName(run, t.Name)
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: withLabels(objectMeta(run, name, AppTarget), targetLabels(run, t)),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: targetSelector(run, t),
			Ports: []corev1.ServicePort{{
				Name: "http", Port: TargetPort(t), TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP,
			}},
			// Readiness gates the start of the run, not the traffic: a target that misses
			// a probe while saturated keeps its endpoint, so its slowness is measured as
			// latency instead of turning into connection errors.
			PublishNotReadyAddresses: true,
		},
	}
}

// targetEnv is the contract's environment (targets/CONTRACT.md): PORT, WORKERS, the
// database settings when the run has a database, then the target's own variables.
func targetEnv(run *benchv1.BenchmarkRun, t benchv1.Target) []corev1.EnvVar {
	env := []corev1.EnvVar{
		{Name: "PORT", Value: strconv.Itoa(int(TargetPort(t)))},
		{Name: "WORKERS", Value: strconv.Itoa(int(max(t.Workers, 1)))},
	}
	if db := run.Spec.Database; db != nil {
		env = append(env, databaseEnv(run, db)...)
	}
	for _, e := range t.Env {
		env = append(env, corev1.EnvVar{Name: e.Name, Value: e.Value})
	}
	return env
}

// Contract defaults of the per-worker pool and of DB_PREPARED, for specs not defaulted by
// the API server (objects built in memory).
const (
	defaultPoolMin  = 5
	defaultPoolMax  = 15
	defaultPrepared = "on"
)

// dbCADir is where a target finds the CA of its database's server certificate.
const dbCADir = "/etc/gauntlet/db-ca"

// databaseCAVolume projects only ca.crt of CloudNativePG's <cluster>-ca Secret: the same
// Secret holds the CA's private key, which a target must never see.
func databaseCAVolume(run *benchv1.BenchmarkRun) corev1.Volume {
	return corev1.Volume{Name: "db-ca", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
		SecretName: ClusterName(run) + "-ca",
		Items:      []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}},
	}}}
}

// databaseEnv builds DATABASE_URL from the credentials CloudNativePG generates in the
// <cluster>-app Secret. The kubelet expands $(DB_USER) and $(DB_PASSWORD) from the
// variables before it, so the password is never a literal in any object. CloudNativePG
// generates alphanumeric passwords, which need no escaping in a URL. CloudNativePG serves
// TLS (PgBouncer too, with the cluster's certificate): targets verify it against the
// cluster's CA (verify-full), which libpq, pgx, asyncpg and node-postgres all read from
// sslrootcert; with sslmode=require node-postgres would verify anyway and refuse the
// cluster's self-signed CA.
func databaseEnv(run *benchv1.BenchmarkRun, db *benchv1.Database) []corev1.EnvVar {
	secret := ClusterName(run) + "-app"
	fromSecret := func(key string) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key,
		}}
	}
	// DB_PREPARED is the contract's on or off (targets/CONTRACT.md), from Enabled or Disabled.
	poolMin, poolMax, prepared := int32(defaultPoolMin), db.AppPool.Max, db.PreparedStatements.DBPrepared()
	if db.AppPool.Min != nil {
		poolMin = *db.AppPool.Min
	}
	if poolMax == 0 {
		poolMax = defaultPoolMax
	}
	if prepared == "" {
		prepared = defaultPrepared
	}
	return []corev1.EnvVar{
		{Name: "DB_USER", ValueFrom: fromSecret("username")},
		{Name: "DB_PASSWORD", ValueFrom: fromSecret("password")},
		{Name: "DATABASE_URL", Value: fmt.Sprintf("postgres://$(DB_USER):$(DB_PASSWORD)@%s:5432/%s?sslmode=verify-full&sslrootcert=%s/ca.crt",
			DatabaseHost(run), appDatabase, dbCADir)},
		{Name: "DB_POOL_MIN", Value: strconv.Itoa(int(poolMin))},
		{Name: "DB_POOL_MAX", Value: strconv.Itoa(int(poolMax))},
		{Name: "DB_PREPARED", Value: prepared},
	}
}

// DatabaseHost is what targets connect to: the Pooler's Service, or the primary's
// read-write Service with connectVia: Direct.
func DatabaseHost(run *benchv1.BenchmarkRun) string {
	if db := run.Spec.Database; db != nil && db.ConnectVia == benchv1.ConnectViaDirect {
		return ClusterName(run) + "-rw"
	}
	return PoolerName(run)
}

// guaranteed makes requests equal limits (Guaranteed QoS), with the API's defaults.
func guaranteed(r benchv1.Resources) corev1.ResourceRequirements {
	list := corev1.ResourceList{
		corev1.ResourceCPU:    r.CPUOrDefault(),
		corev1.ResourceMemory: r.MemoryOrDefault(),
	}
	return corev1.ResourceRequirements{Requests: list, Limits: list.DeepCopy()}
}

func quantityOr(q *resource.Quantity, def string) resource.Quantity {
	if q != nil {
		return q.DeepCopy()
	}
	return resource.MustParse(def)
}

func tolerations(in []benchv1.Toleration) []corev1.Toleration {
	if len(in) == 0 {
		return nil
	}
	out := make([]corev1.Toleration, 0, len(in))
	for _, t := range in {
		out = append(out, corev1.Toleration{
			Key: t.Key, Operator: corev1.TolerationOperator(t.Operator), Value: t.Value,
			Effect: corev1.TaintEffect(t.Effect), TolerationSeconds: t.TolerationSeconds,
		})
	}
	return out
}

// withLabels replaces the labels of meta (used when a kind adds its own keys).
func withLabels(meta metav1.ObjectMeta, l map[string]string) metav1.ObjectMeta {
	meta.Labels = l
	return meta
}

// restrictedPod is the pod security context of every pod the operator creates: the
// restricted Pod Security Standard's, as uid (and gid) uid.
func restrictedPod(uid int64) *corev1.PodSecurityContext {
	return &corev1.PodSecurityContext{
		RunAsNonRoot:   ptr.To(true),
		RunAsUser:      ptr.To(uid),
		RunAsGroup:     ptr.To(uid),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}
