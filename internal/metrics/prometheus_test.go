package metrics

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
	"testing"
	"time"
)

// The tests share one real Prometheus (Debian's 2.42, from hack/prometheus.sh), started
// here with the remote-write receiver and native histograms, as the cluster's runs it.
var (
	promURL  string // http://127.0.0.1:PORT
	repoRoot string
)

func TestMain(m *testing.M) {
	os.Exit(runWithPrometheus(m))
}

func runWithPrometheus(m *testing.M) int {
	var err error
	if repoRoot, err = findRoot(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	stop, err := startPrometheus()
	if err != nil {
		fmt.Fprintln(os.Stderr, "prometheus:", err)
		return 1
	}
	defer stop()
	return m.Run()
}

func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// startPrometheus runs Prometheus on a free loopback port with its own TSDB and no scrape
// jobs (every sample arrives by remote write) and returns a function that stops it.
func startPrometheus() (func(), error) {
	out, err := exec.Command(filepath.Join(repoRoot, "hack", "prometheus.sh")).Output()
	if err != nil {
		return nil, fmt.Errorf("hack/prometheus.sh: %w", err)
	}
	bin := strings.TrimSpace(string(out))
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
	logFile, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--web.enable-remote-write-receiver",
		"--enable-feature=native-histograms")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		logFile.Close()
		os.RemoveAll(dir)
	}
	promURL = "http://" + addr
	if err := waitReady(promURL+"/-/ready", 30*time.Second); err != nil {
		log, _ := os.ReadFile(logFile.Name())
		stop()
		return nil, fmt.Errorf("%w\n%s", err, log)
	}
	return stop, nil
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
			return fmt.Errorf("not ready at %s after %v", url, timeout)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func newTestReader(t *testing.T) *Reader {
	t.Helper()
	r, err := NewReader(promURL)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
