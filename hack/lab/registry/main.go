// Command registry is the lab's OCI registry and the one client the lab's scripts use
// with it, both from go-containerregistry:
//
//	registry serve ADDR DIR          an OCI distribution registry on ADDR, blobs under DIR
//	registry push LAYOUT TAG REF     pushes image TAG of an OCI layout (umoci's) as REF
//	registry relabel SRC DST K=V     copies SRC to DST with a config label added: the same
//	                                 files under a new digest (what a rebuild yields)
//	registry digest REF              prints REF's manifest digest
//
// The registry keeps manifests in memory (blobs on disk), so hack/lab/images.sh pushes the
// product's images each time the lab starts; a blob already there is not sent again.
package main

import (
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "registry:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: registry serve|push|relabel|digest ...")
	}
	switch cmd, rest := args[0], args[1:]; {
	case cmd == "serve" && len(rest) == 2:
		return serve(rest[0], rest[1])
	case cmd == "push" && len(rest) == 3:
		return push(rest[0], rest[1], rest[2])
	case cmd == "relabel" && len(rest) == 3:
		return relabel(rest[0], rest[1], rest[2])
	case cmd == "digest" && len(rest) == 1:
		ref, err := name.ParseReference(rest[0])
		if err != nil {
			return err
		}
		d, err := remote.Head(ref)
		if err != nil {
			return err
		}
		fmt.Println(d.Digest)
		return nil
	}
	return fmt.Errorf("unknown command or wrong arguments: %q", args)
}

func serve(addr, dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	srv := &http.Server{
		Addr:              addr,
		Handler:           registry.New(registry.WithBlobHandler(registry.NewDiskBlobHandler(dir))),
		ReadHeaderTimeout: 10 * time.Second,
	}
	log.Printf("serving on %s, blobs in %s", addr, dir)
	return srv.ListenAndServe()
}

// push sends the image the layout's index names TAG (the ref.name annotation umoci writes).
func push(dir, tag, dst string) error {
	ref, err := name.ParseReference(dst)
	if err != nil {
		return err
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return err
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	for _, d := range m.Manifests {
		if d.Annotations["org.opencontainers.image.ref.name"] != tag {
			continue
		}
		img, err := idx.Image(d.Digest)
		if err != nil {
			return err
		}
		return remote.Write(ref, img)
	}
	return fmt.Errorf("%s has no image tagged %q", dir, tag)
}

func relabel(src, dst, label string) error {
	k, v, ok := strings.Cut(label, "=")
	if !ok {
		return fmt.Errorf("label %q: want KEY=VALUE", label)
	}
	from, err := name.ParseReference(src)
	if err != nil {
		return err
	}
	to, err := name.ParseReference(dst)
	if err != nil {
		return err
	}
	img, err := remote.Image(from)
	if err != nil {
		return err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cfg := cf.Config
	labels := map[string]string{k: v}
	for lk, lv := range cfg.Labels {
		if lk != k {
			labels[lk] = lv
		}
	}
	cfg.Labels = labels
	out, err := mutate.Config(img, cfg)
	if err != nil {
		return err
	}
	return remote.Write(to, out)
}
