// Package specs builds the objects the operator wants in the cluster for a BenchmarkRun:
// target Deployments and Services, the CloudNativePG Cluster and Pooler, ConfigMaps and
// k6-operator TestRuns. Every builder is a pure function of the run and the operator's
// Config: no client, no context, so tests compare whole objects.
package specs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// MaxNameLength is the longest DNS-1035 label, the limit of Service names and label values.
const MaxNameLength = 63

// maxClusterNameLength is CloudNativePG's own limit: its webhook refuses longer Cluster
// names because it derives longer ones from them (<cluster>-rw, <cluster>-app, ...).
const maxClusterNameLength = 50

// maxTestRunNameLength leaves room for what k6-operator derives from a TestRun's name:
// Jobs <name>-initializer and Services <name>-service-<index>, whose names become label
// values (63 characters at most).
const maxTestRunNameLength = 50

// hashLength is how many hex digits of SHA-256 tell shortened label values apart.
const hashLength = 8

// nameHashLength is how many hex digits of SHA-256 end every object name (40 bits).
const nameHashLength = 10

// Kinds of object a run names; each is part of the hashed tuple, so a target named
// "pooler" and the run's Pooler never share a name.
const (
	kindTarget = "target"
	kindDB     = "db"
	kindPooler = "pooler"
	kindSchema = "schema"
	kindTrial  = "trial"
	kindNull   = "null"
	kindPolicy = "netpol"
)

// objectName names one object of a run: a DNS-1035 label of at most max characters made of
// a readable prefix (run and parts joined with "-", sanitized, cut to fit) and a hash of the
// tuple (kind, run, parts...). Joining with "-" alone is ambiguous across runs (run "a" with
// target "b-c", run "a-b" with target "c"), so the hash is over the parts each prefixed with
// its length: distinct tuples give distinct names, up to a 40-bit hash collision, which the
// operator's ownership check on "already exists" turns into a refusal, never a mix-up.
func objectName(max int, kind, run string, parts ...string) string {
	h := sha256.New()
	for _, p := range append([]string{kind, run}, parts...) {
		fmt.Fprintf(h, "%d:%s;", len(p), p)
	}
	suffix := hex.EncodeToString(h.Sum(nil))[:nameHashLength]

	var b strings.Builder
	for _, r := range strings.ToLower(strings.Join(append([]string{run}, parts...), "-")) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	prefix := b.String()
	if prefix == "" || prefix[0] < 'a' || prefix[0] > 'z' {
		prefix = "g" + prefix // a label starts with a letter
	}
	prefix = strings.TrimRight(prefix[:min(len(prefix), max-nameHashLength-1)], "-")
	return prefix + "-" + suffix
}

// LabelValue fits a name into a label value (63 characters). Names of Kubernetes objects
// are DNS subdomains, whose characters are all legal in label values; only length matters.
func LabelValue(name string) string {
	if len(name) <= MaxNameLength {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	prefix := strings.TrimRight(name[:MaxNameLength-hashLength-1], "-.")
	return prefix + "-" + hex.EncodeToString(sum[:])[:hashLength]
}

// Label keys; the app.kubernetes.io ones are Kubernetes' recommended labels.
const (
	LabelName      = "app.kubernetes.io/name"
	LabelInstance  = "app.kubernetes.io/instance"
	LabelPartOf    = "app.kubernetes.io/part-of"
	LabelManagedBy = "app.kubernetes.io/managed-by"
	LabelRun       = "gauntlet.dev/run"
	LabelTarget    = "gauntlet.dev/target"
	LabelTrial     = "gauntlet.dev/trial"
)

// ManagedBy is LabelManagedBy's value on everything a run creates; the manager's cache
// holds only objects that carry it (controllers.CacheOptions).
const ManagedBy = "gauntlet-operator"

// Values of LabelName, one per kind of object a run owns.
const (
	AppTarget   = "gauntlet-target"
	AppDatabase = "gauntlet-database"
	AppPooler   = "gauntlet-pooler"
	AppSchema   = "gauntlet-schema"
	AppLoadgen  = "gauntlet-loadgen"
)

// labels are the labels every object of a run carries; instance is the object's own name.
func labels(run *benchv1.BenchmarkRun, app, instance string) map[string]string {
	return map[string]string{
		LabelName:      app,
		LabelInstance:  instance,
		LabelPartOf:    "gauntlet",
		LabelManagedBy: ManagedBy,
		LabelRun:       LabelValue(run.Name),
	}
}

// ownerReferences makes the run the controller owner, so deleting the run deletes what it
// created. Built from the run's UID rather than through a scheme, so builders stay pure.
func ownerReferences(run *benchv1.BenchmarkRun) []metav1.OwnerReference {
	return []metav1.OwnerReference{{
		APIVersion:         benchv1.GroupVersion.String(),
		Kind:               "BenchmarkRun",
		Name:               run.Name,
		UID:                run.UID,
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}}
}

func objectMeta(run *benchv1.BenchmarkRun, name, app string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:            name,
		Namespace:       run.Namespace,
		Labels:          labels(run, app, name),
		OwnerReferences: ownerReferences(run),
	}
}

// TargetName names a target's Deployment and Service.
func TargetName(run *benchv1.BenchmarkRun, target string) string {
	return objectName(MaxNameLength, kindTarget, run.Name, target)
}

// ClusterName names the run's CloudNativePG Cluster.
func ClusterName(run *benchv1.BenchmarkRun) string {
	return objectName(maxClusterNameLength, kindDB, run.Name, "db")
}

// PoolerName names the run's Pooler; CloudNativePG names the pooler's Service the same.
func PoolerName(run *benchv1.BenchmarkRun) string {
	return objectName(MaxNameLength, kindPooler, run.Name, "pooler")
}

// SchemaName names the ConfigMap holding targets/schema.sql.
func SchemaName(run *benchv1.BenchmarkRun) string {
	return objectName(MaxNameLength, kindSchema, run.Name, "schema")
}

// TrialName names a trial's TestRun and the ConfigMap with its plan and script.
func TrialName(run *benchv1.BenchmarkRun, trial string) string {
	return objectName(maxTestRunNameLength, kindTrial, run.Name, trial)
}
