// Package testprom gives tests a real Prometheus (remote-write receiver and native
// histograms on, as the cluster's) and a way to push samples to it, the way cAdvisor's
// series arrive by remote write. Tests of internal/metrics and controllers share it.
package testprom

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Server is a running Prometheus.
type Server struct {
	URL  string // http://127.0.0.1:PORT
	cmd  *exec.Cmd
	dir  string
	logs *os.File
}

// Features are the flags Start gives Prometheus: what the runs need of the cluster's.
var Features = []string{"--web.enable-remote-write-receiver", "--enable-feature=native-histograms"}

// Start runs Prometheus from hack/prometheus.sh (root is the repository) in a temporary
// folder on a free loopback port, with Features, and waits until it is ready.
func Start(root string) (*Server, error) {
	return StartWith(root, Features...)
}

// StartWith is Start with other flags in place of Features: a Prometheus that lacks
// what the runs need, for the checks that must notice.
func StartWith(root string, flags ...string) (*Server, error) {
	out, err := exec.Command(filepath.Join(root, "hack", "prometheus.sh")).Output()
	if err != nil {
		return nil, fmt.Errorf("hack/prometheus.sh: %w", err)
	}
	dir, err := os.MkdirTemp("", "gauntlet-prometheus-")
	if err != nil {
		return nil, err
	}
	config := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(config, []byte("global: {}\n"), 0o644); err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	logs, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(strings.TrimSpace(string(out)), append([]string{"--config.file=" + config,
		"--storage.tsdb.path=" + filepath.Join(dir, "data"), "--web.listen-address=" + addr}, flags...)...)
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + addr, cmd: cmd, dir: dir, logs: logs}
	if err := waitReady(s.URL+"/-/ready", 30*time.Second); err != nil {
		log, _ := os.ReadFile(logs.Name())
		s.Stop()
		return nil, fmt.Errorf("prometheus not ready: %w\n%s", err, log)
	}
	return s, nil
}

// Stop kills Prometheus's process group and removes its folder.
func (s *Server) Stop() {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	_ = s.cmd.Wait()
	s.logs.Close()
	os.RemoveAll(s.dir)
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func waitReady(url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not answer 200 within %v", url, timeout)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
