package controllers

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gauntlet-bench/gauntlet/internal/specs"
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

// stripForCache drops what no reader of the cache uses from every cached object.
func stripForCache(in any) (any, error) {
	obj, err := meta.Accessor(in)
	if err != nil {
		return in, nil // not an object (a tombstone): as it is
	}
	obj.SetManagedFields(nil)
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
