package controllers

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
)

// The metadata the operator reads from its own kinds; the cache keeps no other label or
// annotation of theirs. A tenant's metadata is bounded only by the API server (256 KiB of
// annotations, labels up to the object's 1.5 MiB), and every run and schedule sits in the
// manager's memory, under one limit for all tenants.
var (
	runLabels           = []string{benchv1.LabelSchedule}
	runAnnotations      = []string{benchv1.AnnotationScheduledAt, benchv1.AnnotationTrigger, benchv1.AnnotationRunNow}
	scheduleAnnotations = []string{benchv1.AnnotationRunNow}
)

// lastApplied is kubectl apply's copy of the whole object: as large as the spec again.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// CacheOptions is the manager's cache: limited to namespaces when given (a namespaced
// install), and to what the operator reads through it. Every tenant's objects of a cached
// kind sit in the manager's memory, under one limit for all tenants: the Deployments and
// Services it caches are only those it created (its managed-by label; CloudNativePG's
// Pooler Deployment is read uncached), and no cached object keeps its managedFields or
// kubectl's last-applied copy, which the operator never reads and which can double an
// object's size.
func CacheOptions(namespaces ...string) cache.Options {
	ours := labels.SelectorFromSet(labels.Set{specs.LabelManagedBy: specs.ManagedBy})
	o := cache.Options{
		ByObject: map[client.Object]cache.ByObject{
			&appsv1.Deployment{}: {Label: ours},
			&corev1.Service{}:    {Label: ours},
			// Not CloudNativePG's Cluster: a ByObject entry needs its CRD served when the
			// manager starts, and CloudNativePG is optional (TestMissingOperatorsAreNamed).
		},
		DefaultTransform: stripForCache,
	}
	if len(namespaces) > 0 {
		o.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			o.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	return o
}

// WithoutNamespaces is o (a cluster-wide cache) leaving namespaces out: their objects are
// neither cached nor reconciled, so a namespaced install of its own can serve them beside
// this one (chart value excludedNamespaces). controller-runtime keeps the all-namespaces
// informer off a namespace that has a setting of its own (a field selector
// metadata.namespace!=...); the setting given is a label selector no object can match.
func WithoutNamespaces(o cache.Options, namespaces ...string) cache.Options {
	if len(namespaces) == 0 {
		return o
	}
	o.DefaultNamespaces = map[string]cache.Config{cache.AllNamespaces: {}}
	for _, ns := range namespaces {
		o.DefaultNamespaces[ns] = cache.Config{LabelSelector: matchesNothing}
	}
	return o
}

// matchesNothing is a label selector no object matches (a label both present and absent):
// labels.Nothing() would be sent to the API server as the empty selector, which is everything.
var matchesNothing = func() labels.Selector {
	const key = "gauntlet.dev/excluded-namespace"
	has, err := labels.NewRequirement(key, selection.Exists, nil)
	if err != nil {
		panic(err)
	}
	hasNot, err := labels.NewRequirement(key, selection.DoesNotExist, nil)
	if err != nil {
		panic(err)
	}
	return labels.NewSelector().Add(*has, *hasNot)
}()

// stripForCache drops what no reader of the cache uses from every cached object.
func stripForCache(in any) (any, error) {
	obj, err := meta.Accessor(in)
	if err != nil {
		return in, nil // not an object (a tombstone): as it is
	}
	obj.SetManagedFields(nil)
	switch in.(type) {
	case *benchv1.BenchmarkRun:
		obj.SetLabels(only(obj.GetLabels(), runLabels))
		obj.SetAnnotations(only(obj.GetAnnotations(), runAnnotations))
		return in, nil
	case *benchv1.BenchmarkSchedule:
		obj.SetLabels(nil)
		obj.SetAnnotations(only(obj.GetAnnotations(), scheduleAnnotations))
		return in, nil
	}
	if a := obj.GetAnnotations(); a[lastApplied] != "" {
		b := make(map[string]string, len(a)-1)
		for k, v := range a {
			if k != lastApplied {
				b[k] = v
			}
		}
		obj.SetAnnotations(b)
	}
	return in, nil
}

// only is m's entries under keys, nil when none.
func only(m map[string]string, keys []string) map[string]string {
	var out map[string]string
	for _, k := range keys {
		if v, ok := m[k]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}
