#!/usr/bin/env bash
# Builds Flux's source-controller and kustomize-controller, and the lab's Git server, from
# the module hack/lab/flux in one go build (their common dependencies compile once; static,
# as Flux's images ship them). Cached in bin/lab/flux/<key>/, keyed by the module's files
# (idempotent: warm, a second). hack/lab/binaries.sh runs it (in make test, in the
# background of the other tiers: hack/lab/prebuild.sh).
# Usage: hack/lab/flux.sh  -> prints the directory.
set -euo pipefail
source "$(dirname "$0")/gomod-build.sh"
gomod_build flux \
  source-controller=github.com/fluxcd/source-controller \
  kustomize-controller=github.com/fluxcd/kustomize-controller \
  gitserver=./gitserver
