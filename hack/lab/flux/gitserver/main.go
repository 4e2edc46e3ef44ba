// Command gitserver serves one Git repository over smart HTTP (upload-pack only: clone and
// fetch) for the lab's GitOps pipeline. At start it commits the files of -dir (a mounted
// ConfigMap; its "..data" bookkeeping entries are skipped) to branch main of an in-memory
// repository. Pods cannot reach the host's loopback, so the repository is served from a
// pod; no git binary is needed, go-git does the work.
package main

import (
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/memfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/revlist"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	"github.com/go-git/go-git/v5/storage/memory"
)

func main() {
	dir := flag.String("dir", "/repo", "folder whose files are committed")
	name := flag.String("name", "benchmarks.git", "repository path in the URL")
	addr := flag.String("listen", ":8080", "address to serve on")
	flag.Parse()
	st, head, err := commitDir(*dir)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("serving %s at commit %s on %s", *name, head, *addr)
	http.Handle("/"+*name+"/", &repo{storer: st, prefix: "/" + *name})
	srv := &http.Server{Addr: *addr, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.ListenAndServe())
}

// commitDir makes a repository whose branch main holds one commit of dir's files.
func commitDir(dir string) (*memory.Storage, plumbing.Hash, error) {
	st, wt := memory.NewStorage(), memfs.New()
	r, err := git.InitWithOptions(st, wt, git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")})
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	if err := copyTree(dir, "", wt); err != nil {
		return nil, plumbing.ZeroHash, err
	}
	w, err := r.Worktree()
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	if err := w.AddGlob("."); err != nil {
		return nil, plumbing.ZeroHash, err
	}
	sig := &object.Signature{Name: "gauntlet lab", Email: "lab@gauntlet.local", When: time.Now()}
	h, err := w.Commit("benchmarks from "+dir, &git.CommitOptions{Author: sig})
	return st, h, err
}

// copyTree copies dir's files to the worktree, following symlinks (a ConfigMap volume's
// files and folders are links into its "..data") and skipping names that start with "..".
func copyTree(dir, rel string, wt billy.Filesystem) error {
	entries, err := os.ReadDir(filepath.Join(dir, rel))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "..") {
			continue
		}
		p := filepath.Join(rel, e.Name())
		fi, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			return err
		}
		if fi.IsDir() {
			if err := wt.MkdirAll(p, 0o755); err != nil {
				return err
			}
			if err := copyTree(dir, p, wt); err != nil {
				return err
			}
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			return err
		}
		f, err := wt.Create(p)
		if err != nil {
			return err
		}
		if _, err := f.Write(b); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

// repo answers git's smart HTTP protocol for upload-pack: the references, then packs.
type repo struct {
	storer storer.Storer
	prefix string
}

func (s *repo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, s.prefix)
	var err error
	switch {
	case r.Method == http.MethodGet && path == "/info/refs" && r.URL.Query().Get("service") == "git-upload-pack":
		err = s.advertise(w)
	case r.Method == http.MethodPost && path == "/git-upload-pack":
		err = s.uploadPack(w, r)
	default:
		http.Error(w, "only git-upload-pack over smart HTTP is served", http.StatusNotFound)
		return
	}
	if err != nil {
		log.Printf("%s %s: %v", r.Method, r.URL, err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	log.Printf("%s %s", r.Method, r.URL)
}

// advertise lists the references. Shallow is advertised because Flux clones with depth 1;
// uploadPack then sends the whole (short) history, which answers a shallow request too.
func (s *repo) advertise(w http.ResponseWriter) error {
	sess, err := server.NewServer(server.MapLoader{"lab": s.storer}).
		NewUploadPackSession(&transport.Endpoint{Path: "lab"}, nil)
	if err != nil {
		return err
	}
	ar, err := sess.AdvertisedReferences()
	if err != nil {
		return err
	}
	if err := ar.Capabilities.Set(capability.Shallow); err != nil {
		return err
	}
	ar.Prefix = [][]byte{[]byte("# service=git-upload-pack"), pktline.Flush}
	w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
	w.Header().Set("Cache-Control", "no-cache")
	return ar.Encode(w)
}

// uploadPack answers one round of the negotiation. Until the client says "done" (git sends
// its wants alone first, over stateless HTTP) the answer is the shallow list and a NAK for
// any haves, and no pack; then the pack holds everything the wants reach, haves ignored and
// no shallow boundary: the client gets every commit back to the root, which answers a
// shallow request too.
func (s *repo) uploadPack(w http.ResponseWriter, r *http.Request) error {
	body := io.Reader(r.Body)
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			return err
		}
		body = gz
	}
	req := packp.NewUploadPackRequest()
	if err := req.Decode(body); err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	if len(req.Wants) == 0 {
		return fmt.Errorf("the request wants nothing")
	}
	// After the wants' flush: "have" lines and flushes, then "done" (or not yet).
	var haves, done bool
	for sc := pktline.NewScanner(body); sc.Scan(); {
		line := strings.TrimSpace(string(sc.Bytes()))
		haves = haves || strings.HasPrefix(line, "have ")
		done = done || line == "done"
	}
	w.Header().Set("Content-Type", "application/x-git-upload-pack-result")
	w.Header().Set("Cache-Control", "no-cache")
	if !done {
		if !req.Depth.IsZero() {
			if err := (&packp.ShallowUpdate{}).Encode(w); err != nil {
				return err
			}
		}
		if haves {
			return (&packp.ServerResponse{}).Encode(w, false)
		}
		return nil
	}
	objs, err := revlist.Objects(s.storer, req.Wants, nil)
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := packfile.NewEncoder(pw, s.storer, false).Encode(objs, 10)
		pw.CloseWithError(err)
	}()
	return packp.NewUploadPackResponseWithPackfile(req, pr).Encode(w)
}
