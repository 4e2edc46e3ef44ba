package main

// -reference: each target against its framework's minimal app (hack/reference/<preset>),
// one worker, the server pinned to one core and wrk to another, target and reference
// alternating within every round, so drift on a shared machine hits both alike.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/gauntlet-bench/gauntlet/hack/internal/pin"
	"github.com/gauntlet-bench/gauntlet/internal/local"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

// reference is how a framework's minimal app starts, with its target's installed packages.
type reference struct {
	// argv, run in hack/reference/<preset>; "{target}" is the target's folder.
	argv []string
	env  []string
	// build, when set, runs first in the reference's folder (for compiled references).
	build []string
}

var references = map[string]reference{
	"python-starlette": {argv: uvicorn("python-starlette")},
	"python-fastapi":   {argv: uvicorn("python-fastapi")},
	"go-nethttp":       {build: []string{"bash", "{root}/hack/targets/go.sh", "."}, argv: []string{".build/server"}},
	"node-fastify":     {argv: []string{"node", "app.js"}, env: []string{"NODE_PATH={target}/node_modules"}},
}

func uvicorn(target string) []string {
	return []string{"{target}/.venv/bin/python", "-m", "uvicorn", "app:app", "--host", "127.0.0.1", "--port", "{port}",
		"--loop", "uvloop", "--http", "httptools", "--no-access-log", "--log-level", "warning", "--workers", "1"}
}

type refOptions struct {
	rounds            int
	duration          time.Duration
	conns             int
	serverCPU, wrkCPU string
	only              *regexp.Regexp
	targetEnv         []string // extra environment for the targets (e.g. GODEBUG=multipathtcp=0)
	skipInstall       bool     // targets installed and references built beforehand
}

func runReference(root string, o refOptions) error {
	presets, err := preset.LoadAll(filepath.Join(root, "targets"))
	if err != nil {
		return err
	}
	var chosen []*preset.Preset
	for _, p := range presets {
		if _, ok := references[p.Name]; ok && o.only.MatchString(p.Name) {
			if !o.skipInstall {
				if err := local.Install(context.Background(), root, p); err != nil {
					return err
				}
			}
			chosen = append(chosen, p)
		}
	}
	type runs struct{ target, ref []float64 }
	got := map[string]*runs{}
	for r := 1; r <= o.rounds; r++ {
		for _, p := range chosen {
			if got[p.Name] == nil {
				got[p.Name] = &runs{}
			}
			order := []bool{true, false} // target first on odd rounds, reference first on even
			if r%2 == 0 {
				order = []bool{false, true}
			}
			for _, isTarget := range order {
				var rps float64
				var err error
				if isTarget {
					rps, err = wrkTarget(root, p, o)
					got[p.Name].target = append(got[p.Name].target, rps)
				} else {
					rps, err = wrkReference(root, p, o)
					got[p.Name].ref = append(got[p.Name].ref, rps)
				}
				if err != nil {
					return fmt.Errorf("%s (target %v): %w", p.Name, isTarget, err)
				}
				fmt.Fprintf(os.Stderr, "round %d %s %s: %.0f req/s\n", r, p.Name, map[bool]string{true: "target", false: "reference"}[isTarget], rps)
			}
		}
	}
	out := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(out, "target\tframework\ttarget req/s (median; runs)\treference req/s (median; runs)\ttarget ÷ reference\n")
	for _, p := range chosen {
		g := got[p.Name]
		mt, mr := median(g.target), median(g.ref)
		fmt.Fprintf(out, "%s\t%s %s\t%.0f; %s\t%.0f; %s\t%.2f\n", p.Name, p.Framework.Name, p.Framework.Version,
			mt, list(g.target), mr, list(g.ref), mt/mr)
	}
	fmt.Fprintf(out, "wrk -t1 -c%d -d%v, one worker; server on CPUs %s, wrk on %s; %d alternating rounds\n",
		o.conns, o.duration, o.serverCPU, o.wrkCPU, o.rounds)
	return out.Flush()
}

func wrkTarget(root string, p *preset.Preset, o refOptions) (float64, error) {
	env := map[string]string{}
	for _, kv := range o.targetEnv {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	tg, err := local.StartTarget(context.Background(), local.TargetOptions{Preset: p, Ports: local.PortRange{Lo: 17000, Hi: 17999}, Workers: 1, Env: env})
	if err != nil {
		return 0, err
	}
	defer func() { _ = tg.Stop(15 * time.Second) }() // a measuring tool: the target's exit is not a result
	if err := pin.Group(tg.Pid(), o.serverCPU); err != nil {
		return 0, err
	}
	return wrkRPS(tg.URL+"/api/ping", o)
}

func wrkReference(root string, p *preset.Preset, o refOptions) (float64, error) {
	ref := references[p.Name]
	dir := filepath.Join(root, "hack", "reference", p.Name)
	port, err := local.FreePort(local.PortRange{Lo: 17000, Hi: 17999})
	if err != nil {
		return 0, err
	}
	expand := strings.NewReplacer("{root}", root, "{target}", filepath.Join(root, "targets", p.Name), "{port}", strconv.Itoa(port))
	sub := func(in []string) []string {
		out := make([]string, len(in))
		for i, s := range in {
			out[i] = expand.Replace(s)
		}
		return out
	}
	if ref.build != nil && !o.skipInstall {
		b := sub(ref.build)
		cmd := exec.Command(b[0], b[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("building the reference: %v: %s", err, out)
		}
	}
	argv := sub(ref.argv)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), sub(ref.env)...), "PORT="+strconv.Itoa(port), "GOMAXPROCS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() }()
	url := fmt.Sprintf("http://127.0.0.1:%d/api/ping", port)
	if err := waitOK(url, 30*time.Second); err != nil {
		return 0, err
	}
	if err := pin.Group(cmd.Process.Pid, o.serverCPU); err != nil {
		return 0, err
	}
	return wrkRPS(url, o)
}

func waitOK(url string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New(url + " never answered 200")
}

func wrkRPS(url string, o refOptions) (float64, error) {
	raw, err := exec.Command("taskset", "-c", o.wrkCPU, "wrk", "-t1", fmt.Sprintf("-c%d", o.conns), "-d"+o.duration.String(), url).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("wrk: %v: %s", err, raw)
	}
	m := rpsRe.FindSubmatch(raw)
	if m == nil {
		return 0, fmt.Errorf("wrk printed no Requests/sec: %s", raw)
	}
	if bad := regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`).FindSubmatch(raw); bad != nil {
		return 0, fmt.Errorf("%s non-2xx answers from %s", bad[1], url)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func list(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strings.Join(parts, "/")
}
