package controllers

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// Real local services the envtest suite points the operator at: Prometheus with the
// remote-write receiver and native histograms (as the cluster's runs), and the go-nethttp
// target built from targets/.

// process is a started service; stop kills its process group.
type process struct {
	url  string
	pid  int
	stop func()
}

func startGoTarget() (*process, error) {
	root := testenv.Root()
	dir := filepath.Join(root, "targets", "go-nethttp")
	if out, err := exec.Command("bash", filepath.Join(root, "hack", "targets", "go.sh"), dir).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("hack/targets/go.sh: %v\n%s", err, out)
	}
	tmp, err := os.MkdirTemp("", "gauntlet-controllers-target-")
	if err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	_, port, _ := net.SplitHostPort(addr)
	return startProcess(tmp, "/healthz", []string{filepath.Join(dir, ".build", "server")}, "", []string{"PORT=" + port, "WORKERS=2"}, addr)
}

// startProcess runs argv (plus listenFlag with a free address, when given) and waits
// until readyPath answers 200.
func startProcess(dir, readyPath string, argv []string, listenFlag string, env []string, addr ...string) (*process, error) {
	a := ""
	if len(addr) > 0 {
		a = addr[0]
	} else {
		var err error
		if a, err = freeAddr(); err != nil {
			return nil, err
		}
	}
	if listenFlag != "" {
		argv = append(argv, fmt.Sprintf(listenFlag, a))
	}
	logFile, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{url: "http://" + a, pid: cmd.Process.Pid, stop: func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		logFile.Close()
		os.RemoveAll(dir)
	}}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if resp, err := http.Get(p.url + readyPath); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logFile.Name())
			p.stop()
			return nil, fmt.Errorf("%s not ready at %s:\n%s", argv[0], p.url, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// procUsage is a process's CPU time in seconds and resident memory in bytes, from
// /proc/<pid>/stat: what cAdvisor reads from the cgroup of a one-process container.
func procUsage(pid int) (cpuSeconds, rssBytes float64, err error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// Fields after the command's closing parenthesis: utime and stime are the 12th and
	// 13th (clock ticks, USER_HZ = 100), rss (pages) the 22nd.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	rss, _ := strconv.ParseFloat(f[21], 64)
	return (utime + stime) / 100, rss * float64(os.Getpagesize()), nil
}
