package controllers

import (
	"fmt"
	"slices"
)

// DefaultProtectedNamespaces are the cluster's own namespaces: a run there would put a
// tenant's targets, database and load beside the control plane's pods and Secrets. The
// manager adds its own namespace (its token Secrets, the wire agents) in cmd/manager.
var DefaultProtectedNamespaces = []string{"kube-system", "kube-public", "kube-node-lease"}

// protectedNamespace says why a run in ns is not served, or "" when it is. Only a
// cluster-wide install refuses: a namespaced one serves the one namespace it was given.
func (r *BenchmarkRunReconciler) protectedNamespace(ns string) string {
	if r.WatchNamespace != "" || !slices.Contains(r.ProtectedNamespaces, ns) {
		return ""
	}
	return fmt.Sprintf("namespace %s is protected (--protected-namespaces): the operator runs no benchmark there; create the run in a namespace of your own", ns)
}
