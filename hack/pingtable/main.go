// Command pingtable measures every target's GET /api/ping with wrk, one target at a time,
// for the table in the targets issue's closing note. It is a measuring tool, not a test:
//
//	hack/apt.sh wrk && go run ./hack/pingtable [-workers 2] [-duration 10s] [-connections 50]
//
// With -reference, each target with a hack/reference app is measured against it (target ÷
// reference req/s and p99), one worker, server and wrk pinned to different cores, a warm-up
// before each run, alternating, in two passes (the second starting with the reference):
//
//	go run ./hack/pingtable -reference [-rounds 3] [-passes 2] [-warmup 5s] [-only python-] [-target-env GODEBUG=multipathtcp=0]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/local"
	"github.com/gauntlet-bench/gauntlet/internal/loopback"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
)

func main() {
	workers := flag.Int("workers", 2, "WORKERS for every target")
	duration := flag.Duration("duration", 10*time.Second, "wrk -d")
	conns := flag.Int("connections", 50, "wrk -c")
	only := flag.String("only", "", "regexp of target names to measure")
	ref := flag.Bool("reference", false, "measure each target against its hack/reference app")
	rounds := flag.Int("rounds", 3, "-reference: measured runs of each side per pass")
	passes := flag.Int("passes", 2, "-reference: passes; odd ones start with the target, even ones with the reference")
	warmup := flag.Duration("warmup", 5*time.Second, "-reference: unmeasured wrk run before each measured one")
	serverCPU := flag.String("server-cpus", "1", "-reference: CPUs of the server (taskset list)")
	wrkCPU := flag.String("wrk-cpus", "0", "-reference: CPUs of wrk (taskset list)")
	targetEnv := flag.String("target-env", "", "-reference: KEY=VALUE[,KEY=VALUE] added to the targets' environment")
	skipInstall := flag.Bool("skip-install", false, "-reference: use targets and references as already installed and built (a machine without their toolchains: hack/bench-bundle.sh)")
	flag.Parse()
	if *ref {
		root, _ := os.Getwd()
		var env []string
		if *targetEnv != "" {
			env = strings.Split(*targetEnv, ",")
		}
		if err := runReference(root, refOptions{rounds: *rounds, passes: *passes, warmup: *warmup, duration: *duration, conns: *conns, serverCPU: *serverCPU,
			wrkCPU: *wrkCPU, only: regexp.MustCompile(*only), targetEnv: env, skipInstall: *skipInstall}); err != nil {
			fmt.Fprintln(os.Stderr, "pingtable:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*workers, *duration, *conns, regexp.MustCompile(*only)); err != nil {
		fmt.Fprintln(os.Stderr, "pingtable:", err)
		os.Exit(1)
	}
}

func run(workers int, duration time.Duration, conns int, only *regexp.Regexp) error {
	if _, err := exec.LookPath("wrk"); err != nil {
		return fmt.Errorf("wrk is missing: run hack/apt.sh wrk")
	}
	root, _ := os.Getwd()
	presets, err := preset.LoadAll(filepath.Join(root, "targets"))
	if err != nil {
		return err
	}
	out := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(out, "target\truntime\tframework\tendpoints\treq/s\tp50\tp99")
	for _, p := range presets {
		if !only.MatchString(p.Name) {
			continue
		}
		rps, p50, p99, err := measure(root, p, workers, duration, conns)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Name, err)
		}
		fmt.Fprintf(out, "%s\t%s %s\t%s %s\t%d\t%s\t%s\t%s\n", p.Name, p.Runtime.Name, p.Runtime.Version,
			p.Framework.Name, p.Framework.Version, len(p.Endpoints), rps, p50, p99)
	}
	return out.Flush()
}

var (
	rpsRe = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	p50Re = regexp.MustCompile(`\s50%\s+(\S+)`)
	p99Re = regexp.MustCompile(`\s99%\s+(\S+)`)
)

func measure(root string, p *preset.Preset, workers int, d time.Duration, conns int) (rps, p50, p99 string, err error) {
	ctx := context.Background()
	if err := local.Install(ctx, root, p); err != nil {
		return "", "", "", err
	}
	tg, err := local.StartTarget(ctx, local.TargetOptions{Preset: p, Ports: loopback.PortRange{Lo: 17000, Hi: 17999}, Workers: workers})
	if err != nil {
		return "", "", "", err
	}
	defer func() { _ = tg.Stop(15 * time.Second) }() // a measuring tool: the target's exit is not a result
	raw, err := exec.Command("wrk", "-t1", fmt.Sprintf("-c%d", conns), "-d"+d.String(), "--latency", tg.URL+"/api/ping").CombinedOutput()
	if err != nil {
		return "", "", "", fmt.Errorf("wrk: %v: %s", err, raw)
	}
	find := func(re *regexp.Regexp) string {
		if m := re.FindSubmatch(raw); m != nil {
			return string(m[1])
		}
		return "?"
	}
	return find(rpsRe), find(p50Re), find(p99Re), nil
}
