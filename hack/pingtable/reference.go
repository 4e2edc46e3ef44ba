package main

// -reference: each target against its framework's best public configuration
// (hack/reference/<preset>), one worker, the server pinned to one core and wrk to another,
// a warm-up before every measured run, target and reference alternating within a pass (the
// first pass starts with the target, the next with the reference), so drift on a shared
// machine hits both alike.

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
	"github.com/gauntlet-bench/gauntlet/internal/loopback"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

// reference is how a framework's reference app starts.
type reference struct {
	// argv, run in hack/reference/<preset>; "{target}" is the target's folder.
	argv []string
	env  []string
	// build, when set, runs first in the reference's folder: the compiled references' build,
	// and the install of those with their own pinned packages (hack/targets' installers,
	// cached, so a second run costs nothing).
	build []string
}

var references = map[string]reference{
	"python-starlette": gunicorn(),
	"python-fastapi":   gunicorn(),
	"go-nethttp":       {build: []string{"bash", "{root}/hack/targets/go.sh", "."}, argv: []string{".build/server"}},
	"node-fastify":     {argv: []string{"node", "app.js"}, env: []string{"NODE_PATH={target}/node_modules"}},
	"node-express":     {build: []string{"bash", "{root}/hack/targets/node.sh", "."}, argv: []string{"node", "app.js"}},
}

// gunicorn is the Python references' server: gunicorn with uvicorn's worker class, from the
// reference's own venv and gunicorn.conf.py.
func gunicorn() reference {
	return reference{build: []string{"bash", "{root}/hack/targets/python.sh", "."},
		argv: []string{".venv/bin/gunicorn", "app:app", "-c", "gunicorn.conf.py"}, env: []string{"WORKERS=1"}}
}

type refOptions struct {
	rounds            int // measured runs of each side per pass
	passes            int // passes: odd ones start with the target, even ones with the reference
	duration, warmup  time.Duration
	conns             int
	serverCPU, wrkCPU string
	only              *regexp.Regexp
	targetEnv         []string // extra environment for the targets (e.g. GODEBUG=multipathtcp=0)
	skipInstall       bool     // targets installed and references built beforehand
}

// sample is one measured wrk run.
type sample struct {
	rps  float64
	p99  time.Duration
	load string // the 1-minute load average as the run ended: a shared machine's drift
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
	type runs struct{ target, ref []sample }
	out := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(out, "pass\ttarget\tframework\ttarget req/s (median; runs)\treference req/s (median; runs)\ttarget ÷ reference\tp99 target / reference\tload averages\n")
	for pass := 1; pass <= o.passes; pass++ {
		got := map[string]*runs{}
		for _, p := range chosen {
			g := &runs{}
			got[p.Name] = g
			// Strict alternation: T R T R ... on odd passes, R T R T ... on even ones.
			for i := 0; i < 2*o.rounds; i++ {
				isTarget := (i%2 == 0) == (pass%2 == 1)
				var s sample
				var err error
				if isTarget {
					s, err = wrkTarget(root, p, o)
					g.target = append(g.target, s)
				} else {
					s, err = wrkReference(root, p, o)
					g.ref = append(g.ref, s)
				}
				if err != nil {
					return fmt.Errorf("%s (target %v): %w", p.Name, isTarget, err)
				}
				fmt.Fprintf(os.Stderr, "pass %d %s %s: %.0f req/s, p99 %v, load %s\n", pass, p.Name,
					map[bool]string{true: "target", false: "reference"}[isTarget], s.rps, s.p99, s.load)
			}
		}
		for _, p := range chosen {
			g := got[p.Name]
			mt, mr := median(rpsOf(g.target)), median(rpsOf(g.ref))
			var loads []string
			for _, s := range append(append([]sample(nil), g.target...), g.ref...) {
				loads = append(loads, s.load)
			}
			fmt.Fprintf(out, "%d\t%s\t%s %s\t%.0f; %s\t%.0f; %s\t%.2f\t%v / %v\t%s\n", pass, p.Name, p.Framework.Name,
				p.Framework.Version, mt, list(rpsOf(g.target)), mr, list(rpsOf(g.ref)), mt/mr,
				medianDuration(g.target), medianDuration(g.ref), strings.Join(loads, " "))
		}
	}
	fmt.Fprintf(out, "wrk -t1 -c%d -d%v --latency after a %v warm-up, one worker; server on CPUs %s, wrk on %s; "+
		"%d runs of each side per pass, alternating; %d passes (the second starts with the reference); medians\n",
		o.conns, o.duration, o.warmup, o.serverCPU, o.wrkCPU, o.rounds, o.passes)
	return out.Flush()
}

func rpsOf(s []sample) []float64 {
	v := make([]float64, len(s))
	for i, x := range s {
		v[i] = x.rps
	}
	return v
}

func medianDuration(s []sample) time.Duration {
	v := make([]float64, len(s))
	for i, x := range s {
		v[i] = float64(x.p99)
	}
	return time.Duration(median(v)).Round(10 * time.Microsecond)
}

func wrkTarget(root string, p *preset.Preset, o refOptions) (sample, error) {
	env := map[string]string{}
	for _, kv := range o.targetEnv {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	tg, err := local.StartTarget(context.Background(), local.TargetOptions{Preset: p, Ports: loopback.PortRange{Lo: 17000, Hi: 17999}, Workers: 1, Env: env})
	if err != nil {
		return sample{}, err
	}
	defer func() { _ = tg.Stop(15 * time.Second) }() // a measuring tool: the target's exit is not a result
	if err := pin.Group(tg.Pid(), o.serverCPU); err != nil {
		return sample{}, err
	}
	return wrkRPS(tg.URL+"/api/ping", o)
}

func wrkReference(root string, p *preset.Preset, o refOptions) (sample, error) {
	ref := references[p.Name]
	dir := filepath.Join(root, "hack", "reference", p.Name)
	port, err := loopback.FreePort(loopback.PortRange{Lo: 17000, Hi: 17999})
	if err != nil {
		return sample{}, err
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
			return sample{}, fmt.Errorf("building the reference: %v: %s", err, out)
		}
	}
	argv := sub(ref.argv)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), sub(ref.env)...), "PORT="+strconv.Itoa(port), "GOMAXPROCS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() }()
	url := fmt.Sprintf("http://127.0.0.1:%d/api/ping", port)
	if err := waitOK(url, 30*time.Second); err != nil {
		return sample{}, err
	}
	if err := pin.Group(cmd.Process.Pid, o.serverCPU); err != nil {
		return sample{}, err
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

// wrkRPS warms url up for o.warmup (not measured), then measures it for o.duration.
func wrkRPS(url string, o refOptions) (sample, error) {
	wrk := func(d time.Duration) ([]byte, error) {
		raw, err := exec.Command("taskset", "-c", o.wrkCPU, "wrk", "-t1", fmt.Sprintf("-c%d", o.conns), "-d"+d.String(),
			"--latency", url).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("wrk: %v: %s", err, raw)
		}
		if bad := regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`).FindSubmatch(raw); bad != nil {
			return nil, fmt.Errorf("%s non-2xx answers from %s", bad[1], url)
		}
		return raw, nil
	}
	if o.warmup > 0 {
		if _, err := wrk(o.warmup); err != nil {
			return sample{}, err
		}
	}
	raw, err := wrk(o.duration)
	if err != nil {
		return sample{}, err
	}
	m := rpsRe.FindSubmatch(raw)
	if m == nil {
		return sample{}, fmt.Errorf("wrk printed no Requests/sec: %s", raw)
	}
	rps, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		return sample{}, err
	}
	s := sample{rps: rps, load: "?"}
	if p := p99Re.FindSubmatch(raw); p != nil {
		// wrk prints "1.23ms", "950.00us" or "1.02s": Go's duration syntax, but for "us".
		s.p99, _ = time.ParseDuration(strings.Replace(string(p[1]), "us", "µs", 1))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		s.load = strings.Fields(string(b))[0]
	}
	return s, nil
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
