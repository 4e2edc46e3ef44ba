//go:build tools

// Flux's source-controller and kustomize-controller for the lab's GitOps pipeline, built
// from their own modules' main packages in one module graph, so that their common
// dependencies (client-go, controller-runtime, go-git, Flux's pkg) compile once.
package flux

import (
	_ "github.com/fluxcd/kustomize-controller"
	_ "github.com/fluxcd/source-controller"
)
