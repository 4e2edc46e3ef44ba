# Gauntlet: `make demo` runs a real benchmark locally, `make test` runs every test tier.
# Every tool comes from a hack/ script (cached under bin/ and .cache/), never by hand.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
GO_TEST_TIMEOUT ?= 40m
# make reproductions: repetitions of every sample row, so each claim has a spread (docs/reproductions.md, "How a claim is decided").
REPRO_REPETITIONS ?= 3
# One set of Go build flags for the tests, the lab's binaries and its images (static, as the
# images ship them): what the tests compiled, the lab's builds take from the build cache.
export CGO_ENABLED := 0
# The Go compiler's collector at 400 instead of 100 for the builds of tools and binaries (not
# for tests, whose processes the tiers measure): 16% less CPU compiling cmd/manager from an
# empty cache (184 s against 213 s on 2 cores, peak memory 1.37 GB against 1.32 GB).
BUILD_GOGC := 400
deps lint verify-generated: export GOGC := $(BUILD_GOGC)

CONTROLLER_GEN = $(shell hack/tools.sh controller-gen)

.PHONY: release-snapshot all help build test test-unit test-envtest test-race test-local test-lab test-argocd lint manifests generate verify-generated deps envtest k6 demo reproductions images clean bench-generator modes lab-up lab-stack lab-down lab-test lab-seeds lab-test-core

all: build

help: ## This list (from the ## comments of the Makefile).
	@awk 'BEGIN {FS = ":[^#]*## "} /^[a-zA-Z_-]+:[^=]*## / {printf "  %-18s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## Build the manager and the CLI into bin/.
	go build -o bin/manager ./cmd/manager
	go build -o bin/gauntlet ./cmd/gauntlet

manifests: ## Generate the CRD and RBAC from the markers in api/ and controllers/.
	$(CONTROLLER_GEN) crd paths=./api/... output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=gauntlet-manager paths=./controllers/... output:rbac:artifacts:config=config/rbac
	mkdir -p charts/gauntlet/dashboards && rm -f charts/gauntlet/dashboards/*.json && cp dashboards/*.json charts/gauntlet/dashboards/
	# config/dashboards (kustomize) holds the same copies: kustomize reads no file above its folder.
	rm -f config/dashboards/*.json && cp dashboards/*.json config/dashboards/
	# The chart carries the same CRDs and manager rules (test/chart fails when they drift);
	# templates/crds.yaml renders every file of files/crds/, so helm upgrade updates them.
	mkdir -p charts/gauntlet/files/crds && rm -f charts/gauntlet/files/crds/*.yaml
	cp config/crd/bases/*.yaml charts/gauntlet/files/crds/
	cp config/rbac/role.yaml charts/gauntlet/files/manager-role.yaml

generate: presets manifests ## Generate the preset lists (make presets), the CRD and RBAC (make manifests) and the deepcopy functions.
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./api/...

.PHONY: presets
presets: ## Write every list of presets (the API's enum, the chart's presetImages and schema, docker-bake.hcl, the lab's image recipes) from targets/*/target.yaml (hack/presets).
	go run ./hack/presets

# What make generate writes: a change to any of it after make generate is a stale file.
GENERATED := api config charts/gauntlet/dashboards charts/gauntlet/files charts/gauntlet/values.yaml \
  charts/gauntlet/values.schema.json docker-bake.hcl hack/lab/images.sh

verify-generated: presets manifests generate ## Fail when generated files are stale.
	@if [[ -n "$$(git status --porcelain -- $(GENERATED))" ]]; then \
	  git status --porcelain -- $(GENERATED); git --no-pager diff --stat -- $(GENERATED); \
	  echo "generated files are stale: run 'make generate' and commit"; exit 1; fi

lint: ## gofmt, go vet, golangci-lint (.golangci.yml), the modes' imports (hack/importcheck), shellcheck (.shellcheckrc), the docs' links.
	@out="$$(gofmt -l $$(git ls-files '*.go'))"; if [[ -n "$$out" ]]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet ./...
	"$$(hack/tools.sh golangci-lint)" run ./...
	go run ./hack/importcheck
	hack/apt.sh shellcheck
	shellcheck $$(git ls-files '*.sh') .ci/run
	go run ./hack/linkcheck

deps: ## Install what the tests run: PostgreSQL, PgBouncer, Prometheus, k6, envtest, helm, kubeconform, linters (cosign on first use).
	hack/local-user.sh  # the unprivileged user targets run as when tests run as root
	# At once (hack/parallel.sh): from an empty Go cache these builds are most of deps, and one's
	# downloads and links overlap another's compiles. postgresql-15 ships pg_stat_statements
	# (Debian folded -contrib into it); tcpdump is internal/wire's independent capture. test/chart: helm and kubeconform (built once into bin/),
	# and kubeconform's schemas generated from the envtest kube-apiserver (which it builds).
	# helm after kube-apiserver: it takes 77% of its sources from what that compiled, which
	# two builds at once would each compile. Every target installed (npm, pip, its build) as
	# the local tier would on first use. golangci-lint (lint's) builds beside them, at its own pins.
	# cosign (test/release and the lab sign with it) builds on first use, or in make test's
	# background prebuild (hack/lab/prebuild.sh), off this critical path.
	hack/parallel.sh \
	  'hack/targets/install-all.sh >/dev/null' \
	  'hack/apt.sh postgresql-15 pgbouncer tcpdump shellcheck && hack/prometheus.sh >/dev/null' \
	  'hack/k6.sh >/dev/null' \
	  'hack/tools.sh golangci-lint >/dev/null' \
	  'hack/kube-schemas.sh >/dev/null && hack/tools.sh helm >/dev/null' \
	  'hack/tools.sh kubeconform >/dev/null && hack/grafana-schema.sh >/dev/null'

# make -n runs the tiers' recipes with -n (the + prefix), which print their steps instead.
DRY = $(if $(findstring n,$(firstword -$(MAKEFLAGS))),-n)
export GO_TEST_TIMEOUT BUILD_GOGC

test: ## Every tier: deps, lint, generated files, then local; envtest then race beside lab; argocd (hack/test.sh).
	+hack/test.sh $(DRY) all

test-unit: ## The fast loop: go test -short ./... (the pure tests; no processes, no API server).
	+hack/test.sh $(DRY) unit

test-envtest: ## Every package's tests but test/local's, with a real kube-apiserver and etcd.
	+hack/test.sh $(DRY) envtest

test-race: ## The race detector (cgo on) over the engine, the controllers, the local mode, supervise and wire (-short).
	+hack/test.sh $(DRY) race

test-local: ## The CLI and every sample through real k6, PostgreSQL and targets (after make deps).
	+hack/test.sh $(DRY) local

test-lab: ## The lab tier (make lab-test): a real single-node Kubernetes and the three operators.
	+hack/test.sh $(DRY) lab

test-argocd: ## The Argo CD health check through Argo CD's Lua code (test/argocd, its own module).
	+hack/test.sh $(DRY) argocd

demo: ## Run examples/local-quickstart.yaml on this machine (about 6 minutes; targets install on first use).
	hack/k6.sh >/dev/null
	go build -o bin/gauntlet ./cmd/gauntlet
	@# Without root the local mode cannot give each target its CPU and memory limits (a cgroup
	@# per target): the demo then runs without them, as the status and this line say.
	bin/gauntlet run --local -f examples/local-quickstart.yaml $(if $(filter-out 0,$(shell id -u)),--no-limits)

reproductions: ## Run every sample as the samples tier does, REPRO_REPETITIONS (3) times per row, and regenerate docs/reproductions.md from the runs (hours).
	hack/k6.sh >/dev/null
	rm -rf .cache/reproductions && mkdir -p .cache/reproductions
	echo "$$(nproc) CPUs; load average (1, 5, 15 min) before: $$(cut -d' ' -f1-3 /proc/loadavg)" > .cache/reproductions/machine.txt
	status=0; GAUNTLET_SAMPLES_OUT="$(CURDIR)/.cache/reproductions" GAUNTLET_SAMPLES_REPETITIONS=$(REPRO_REPETITIONS) \
	  go test -count=1 -timeout 300m -v \
	  -run 'TestSamples' ./test/local || status=$$?; \
	echo "after: $$(cut -d' ' -f1-3 /proc/loadavg)" >> .cache/reproductions/machine.txt; \
	go run ./hack/reproductions -in .cache/reproductions -out docs/reproductions.md; exit $$status

modes: ## After make lab-seeds (or lab-test): run each document the lab applied here in the local mode (limits on as root) and print its rows beside the cluster's (hack/modes). MODES_ARGS=--shared-cpus: the lab's placement.
	hack/k6.sh >/dev/null
	go build -o bin/gauntlet ./cmd/gauntlet
	for st in .cache/lab/applied/*.status.yaml; do \
	  doc="$${st%.status.yaml}"; name="$$(basename "$$doc")"; rm -rf ".cache/modes/$$name"; \
	  bin/gauntlet run --local $(MODES_ARGS) -f "$$doc.yaml" --out ".cache/modes/$$name" >".cache/modes-$$name.log" 2>&1 || true; \
	  go run ./hack/modes -cluster "$$st" -local ".cache/modes/$$name" || exit 1; echo; \
	done

bench-generator: ## Measure k6's CPU per request and p99 drift against go-nethttp (minutes; pinned cores). BENCH_ARGS=-h for options.
	hack/k6.sh >/dev/null
	go run ./hack/bench-generator $(BENCH_ARGS)

release-snapshot: ## Build every binary of a CLI release (.goreleaser.yaml: linux and darwin, amd64 and arm64) into dist/, without publishing.
	GOGC=$(BUILD_GOGC) "$$(hack/tools.sh goreleaser)" build --snapshot --clean

images: ## Build the operator and every preset image for linux/amd64 and linux/arm64 (Docker with buildx; PUSH=1 pushes; TAG=, REGISTRY= override; BAKE_ARGS= more bake flags).
	command -v docker >/dev/null || { echo "make images needs Docker with buildx (there is no Docker engine on the dev machines; CI builds them)"; exit 1; }
	docker buildx bake -f docker-bake.hcl $(if $(PUSH),--push,) $(BAKE_ARGS)

lab-up: ## Start the lab: a real single-node Kubernetes on this machine (hack/lab/; prints its kubeconfig).
	hack/lab/up.sh

lab-stack: ## The whole stack on this machine: the lab, the operators, Prometheus 3, the chart from the lab's registry with wire capture, namespace bench (prints the next commands).
	hack/lab/packages.sh
	GOGC=$(BUILD_GOGC) hack/lab/binaries.sh lab
	hack/lab/stack.sh

lab-down: ## Stop the lab and remove everything it made (caches in bin/lab and .cache/lab stay).
	hack/lab/down.sh

lab-test: ## The lab tier (test/lab, -tags lab): core checks and the three operators' (labfull).
	hack/lab/prebuild.sh wait
	hack/lab/packages.sh
	# Flux too, unless make test's background build goes on beside the tier: then the GitOps
	# subtest's image step waits for it (hack/lock.sh), at the end of its lane. Three lanes
	# (docs/lab.md): the seeds; the schedule demo; the other drills, the pair and GitOps.
	GOGC=$(BUILD_GOGC) hack/lab/binaries.sh "$$(hack/lab/prebuild.sh running && echo lab || echo all)"
	go test -count=1 -tags lab,labfull -timeout 60m -parallel 3 -json ./test/lab/ | go run ./hack/testdigest

lab-seeds: ## The lab tier's seed documents alone, on a quiet node: the cluster side of make modes (about 21 minutes).
	hack/lab/prebuild.sh wait
	hack/lab/packages.sh
	GOGC=$(BUILD_GOGC) hack/lab/binaries.sh all
	go test -count=1 -tags lab,labfull -timeout 60m -json \
	  -run 'TestLab/^(node_ready_with_both_pools|helm_install_of_the_chart|seeds_and_failure_drills)$$/^seeds$$/seed-' \
	  ./test/lab/ | go run ./hack/testdigest

lab-test-core: ## The lab tier without the operators: node, restricted pod, targets, clean teardown.
	hack/lab/packages.sh
	hack/lab/binaries.sh core
	go test -count=1 -tags lab -timeout 40m -json ./test/lab/ | go run ./hack/testdigest

clean: ## Remove the manager and the CLI from bin/ (the caches stay).
	rm -rf bin/manager bin/gauntlet
