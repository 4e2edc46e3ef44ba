# docker buildx bake: the operator and every target preset, for linux/amd64 and linux/arm64
# (c7g nodes are arm64). `make images` builds them; `make images PUSH=1` (CI, on a tag) pushes.
# Tags are the images the chart and each targets/<preset>/target.yaml name, so the defaults
# below build exactly what a default install deploys. The presets' group and targets are
# written by make generate from targets/*/target.yaml (hack/presets); test/chart/images_test.go
# checks every preset's context, Dockerfile and tag.

variable "REGISTRY" {
  default = "ghcr.io/gauntlet-bench"
}

variable "TAG" {
  default = "0.1.0"
}

group "default" {
  targets = ["operator", "presets"]
}

group "presets" {
  targets = [
    # BEGIN GENERATED presets-group: make generate writes these lines from targets/*/target.yaml (hack/presets)
    "cpp-epoll",
    "go-nethttp",
    "nginx",
    "node-connect",
    "node-express",
    "node-fastify",
    "node-nestjs",
    "pypy-flask",
    "pypy-tornado",
    "python-fastapi",
    "python-flask",
    "python-flask-eventlet",
    "python-starlette"
    # END GENERATED presets-group
  ]
}

target "_platforms" {
  platforms = ["linux/amd64", "linux/arm64"]
  labels = {
    "org.opencontainers.image.source" = "https://github.com/gauntlet-bench/gauntlet"
    "org.opencontainers.image.version" = "${TAG}"
  }
}

target "operator" {
  inherits   = ["_platforms"]
  context    = "."
  dockerfile = "Dockerfile"
  tags       = ["${REGISTRY}/gauntlet:${TAG}"]
  # The presets' manifests in the image name their images at this tag (Dockerfile, VERSION).
  args       = { VERSION = "${TAG}" }
}

# BEGIN GENERATED presets-targets: make generate writes these lines from targets/*/target.yaml (hack/presets)
target "cpp-epoll" {
  inherits   = ["_platforms"]
  context    = "targets/cpp-epoll"
  dockerfile = "Dockerfile"
  tags       = ["${REGISTRY}/target-cpp-epoll:${TAG}"]
}

target "go-nethttp" {
  inherits   = ["_platforms"]
  context    = "targets/go-nethttp"
  dockerfile = "Dockerfile"
  tags       = ["${REGISTRY}/target-go-nethttp:${TAG}"]
}

target "nginx" {
  inherits   = ["_platforms"]
  context    = "targets/nginx"
  dockerfile = "Dockerfile"
  tags       = ["${REGISTRY}/target-nginx:${TAG}"]
}

target "node-connect" {
  # context targets/: the shared kit in targets/_lib; node-connect/Dockerfile.dockerignore trims it
  inherits   = ["_platforms"]
  context    = "targets"
  dockerfile = "node-connect/Dockerfile"
  tags       = ["${REGISTRY}/target-node-connect:${TAG}"]
}

target "node-express" {
  # context targets/: the shared kit in targets/_lib; node-express/Dockerfile.dockerignore trims it
  inherits   = ["_platforms"]
  context    = "targets"
  dockerfile = "node-express/Dockerfile"
  tags       = ["${REGISTRY}/target-node-express:${TAG}"]
}

target "node-fastify" {
  # context targets/: the shared kit in targets/_lib; node-fastify/Dockerfile.dockerignore trims it
  inherits   = ["_platforms"]
  context    = "targets"
  dockerfile = "node-fastify/Dockerfile"
  tags       = ["${REGISTRY}/target-node-fastify:${TAG}"]
}

target "node-nestjs" {
  # context targets/: the shared kit in targets/_lib; node-nestjs/Dockerfile.dockerignore trims it
  inherits   = ["_platforms"]
  context    = "targets"
  dockerfile = "node-nestjs/Dockerfile"
  tags       = ["${REGISTRY}/target-node-nestjs:${TAG}"]
}

target "pypy-flask" {
  # context targets/: the shared kit in targets/_lib; pypy-flask/Dockerfile.dockerignore trims it
  inherits   = ["_platforms"]
  context    = "targets"
  dockerfile = "pypy-flask/Dockerfile"
  tags       = ["${REGISTRY}/target-pypy-flask:${TAG}"]
}

target "pypy-tornado" {
  # context targets/: the shared kit in targets/_lib; pypy-tornado/Dockerfile.dockerignore trims it
  inherits   = ["_platforms"]
  context    = "targets"
  dockerfile = "pypy-tornado/Dockerfile"
  tags       = ["${REGISTRY}/target-pypy-tornado:${TAG}"]
}

target "python-fastapi" {
  # context targets/: the shared kit in targets/_lib; python-fastapi/Dockerfile.dockerignore trims it
  inherits   = ["_platforms"]
  context    = "targets"
  dockerfile = "python-fastapi/Dockerfile"
  tags       = ["${REGISTRY}/target-python-fastapi:${TAG}"]
}

target "python-flask" {
  # context targets/: the shared kit in targets/_lib; python-flask/Dockerfile.dockerignore trims it
  inherits   = ["_platforms"]
  context    = "targets"
  dockerfile = "python-flask/Dockerfile"
  tags       = ["${REGISTRY}/target-python-flask:${TAG}"]
}

target "python-flask-eventlet" {
  # context targets/: the shared kit in targets/_lib; python-flask-eventlet/Dockerfile.dockerignore trims it
  inherits   = ["_platforms"]
  context    = "targets"
  dockerfile = "python-flask-eventlet/Dockerfile"
  tags       = ["${REGISTRY}/target-python-flask-eventlet:${TAG}"]
}

target "python-starlette" {
  # context targets/: the shared kit in targets/_lib; python-starlette/Dockerfile.dockerignore trims it
  inherits   = ["_platforms"]
  context    = "targets"
  dockerfile = "python-starlette/Dockerfile"
  tags       = ["${REGISTRY}/target-python-starlette:${TAG}"]
}
# END GENERATED presets-targets
