# The operator image: manager (the controller) and gauntlet (the CLI, also used for local runs).
# Multi-arch through docker-bake.hcl: the build stage runs on the builder's own platform and Go
# cross-compiles for the target's (no emulation); the final stage only copies files.
FROM --platform=$BUILDPLATFORM golang:1.26.8-bookworm AS build
ARG TARGETOS TARGETARCH
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags "-s -w" -o /out/manager ./cmd/manager \
 && CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -ldflags "-s -w" -o /out/gauntlet ./cmd/gauntlet
# The manager reads each preset's manifest (image, endpoints) from --targets-dir=/targets;
# the loader also checks that the manifest's Dockerfile is there. VERSION (docker-bake.hcl
# passes its TAG) replaces the tag of each manifest's image, so a manager installed without
# the chart's --image flags (config/default) deploys the targets of its own release.
ARG VERSION=""
RUN for d in targets/*/; do \
      if [ -f "$d/target.yaml" ]; then mkdir -p "/out/$d" && cp "$d/target.yaml" "$d/Dockerfile" "/out/$d"; fi; \
    done \
 && if [ -n "$VERSION" ]; then sed -i -E "s|^(image: [^@]*):[^:/@]+$|\\1:${VERSION}|" /out/targets/*/target.yaml; fi

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/manager /out/gauntlet /
COPY --from=build /out/targets /targets
USER 65532:65532
ENTRYPOINT ["/manager"]
