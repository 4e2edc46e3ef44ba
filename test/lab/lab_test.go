//go:build lab

package lab

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// kubeVersion is the Kubernetes the lab builds (hack/lab/versions.sh).
const kubeVersion = "v1.37.2"

// lab is what the subtests share: clients of the running lab and the repository root.
type lab struct {
	root   string
	cfg    *rest.Config
	client kubernetes.Interface
	dyn    dynamic.Interface
}

// TestLab brings the lab up, runs every check against it, brings it down and compares
// the machine with what it was before.
func TestLab(t *testing.T) {
	root := testenv.Root()
	if _, err := os.Stat("/run/gauntlet-lab.owner"); err == nil {
		owner, _ := os.ReadFile("/run/gauntlet-lab.owner")
		t.Fatalf("a lab is already running (from %s): this tier starts and stops its own; run make lab-down first",
			strings.TrimSpace(string(owner)))
	}
	before, err := captureHost(root, "")
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	up := exec.Command(filepath.Join(root, "hack/lab/up.sh"))
	up.Dir = root
	out, upErr := up.CombinedOutput()
	// The disk line: CI's runs differ in what is free, and the kubelet evicts below 512Mi.
	t.Logf("hack/lab/up.sh took %s\n%s", time.Since(start).Round(time.Second), grepLines(string(out), "lab: disk: ", "lab: warning: "))
	netnsID := labNetnsID()
	defer func() {
		down := exec.Command(filepath.Join(root, "hack/lab/down.sh"))
		down.Dir = root
		if out, err := down.CombinedOutput(); err != nil {
			t.Errorf("hack/lab/down.sh: %v\n%s", err, out)
		}
		after, err := captureHost(root, netnsID)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range diffHost(before, after) {
			t.Errorf("make lab-down left the machine changed: %s", d)
		}
	}()
	if upErr != nil {
		t.Fatalf("hack/lab/up.sh: %v\n%s", upErr, tail(string(out), 60))
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(root, ".cache/lab/admin.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{root: root, cfg: cfg, client: kubernetes.NewForConfigOrDie(cfg), dyn: dynamic.NewForConfigOrDie(cfg)}
	t.Run("node ready with both pools", l.testNode)
	t.Run("restricted pod runs to completion", l.testRestrictedPod)
	t.Run("preset targets pass gauntlet verify", l.testTargets)
	l.fullTier(t)
}

// labNetnsID is the lab namespace's identity (net:[inode]), to find its processes later.
func labNetnsID() string {
	out, err := exec.Command("nsenter", "--net=/run/netns/gauntlet-lab", "--", "readlink", "/proc/self/ns/net").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func tail(s string, n int) string {
	ls := strings.Split(s, "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

func ctx(t *testing.T, d time.Duration) context.Context {
	c, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return c
}

// grepLines are the lines of s that start with any of the prefixes.
func grepLines(s string, prefixes ...string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				b.WriteString(line + "\n")
				break
			}
		}
	}
	return b.String()
}
