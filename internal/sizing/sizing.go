// Package sizing chooses how many k6 runners a load point needs, and how much CPU each,
// from what k6 costs per request: enough that every runner stays under the share of its
// CPU beyond which k6's own queueing shows in the latencies it reports
// (results.GeneratorBoundPercent). It builds no Kubernetes object: the operator's TestRun
// builder and measurement and the local mode all read the same Choice (Runners), and the
// local mode must not link the operator's builders (internal/specs; hack/importcheck).
package sizing

import (
	"fmt"

	"github.com/gauntlet-bench/gauntlet/internal/results"
)

// CostMicros is k6's CPU per request (µs of one CPU), loadgen/bench.js with keep-alive,
// per CPU architecture of the runners' nodes, as hack/bench-generator measures it (README,
// "Sizing the load generator"). Unknown architectures use amd64's figure.
var CostMicros = map[string]int64{
	// k6 1.8.1 on 8 cores of a quiet 16-core x86 VM, go-nethttp on 2 others: 206-233 µs at
	// 10,000 req/s (a marginal 208 µs), 254-307 µs at 2,000/s where fixed costs weigh more
	// (2026-11-25; README, "Sizing the load generator").
	"amd64": 230,
	// Not measured here (no arm64 machine): a Graviton vCPU is a whole core, an x86 vCPU a
	// hyperthread, so amd64's figure is taken as an upper bound. Run hack/bench-generator
	// on the node type and set loadGenerator.costPerRequestMicros.
	"arm64": 230,
}

// Limits of a runner's CPU when the sizing chooses it.
const (
	// MinRunnerMillicores: below one CPU, k6's fixed costs (its metrics engine, the
	// remote-write pushes) weigh more than the requests.
	MinRunnerMillicores = 1000
	// stepMillicores rounds a runner's CPU up, so requests stay readable.
	stepMillicores = 250
)

// Input is one load point to size.
type Input struct {
	// Rate is the offered rate, requests per second (open model).
	Rate int64
	// CostMicros is k6's CPU per request, µs.
	CostMicros int64
	// MaxRunnerMillicores is the most CPU one runner may have (what fits a node of the
	// runners' pool).
	MaxRunnerMillicores int64
}

// Choice is what the sizing chose for a load point, and why.
type Choice struct {
	Runners          int32
	RunnerMillicores int64
	// BusyMillicores is the CPU the rate is expected to keep busy, all runners together.
	BusyMillicores int64
	// Reason is the arithmetic, for the status.
	Reason string
}

// MaxRunners is the API's bound on parallelism.
const MaxRunners = 64

// Size spreads the expected CPU over runners of at most MaxRunnerMillicores each, so that
// each stays under results.GeneratorBoundPercent of its own CPU: the fewest runners that
// fit, then the CPU each needs, rounded up.
func Size(in Input) (Choice, error) {
	if in.Rate <= 0 || in.CostMicros <= 0 || in.MaxRunnerMillicores <= 0 {
		return Choice{}, fmt.Errorf("sizing: rate %d/s, cost %d µs, runner CPU %dm: all must be positive", in.Rate, in.CostMicros, in.MaxRunnerMillicores)
	}
	busy := ceilDiv(in.Rate*in.CostMicros, 1000) // µs of CPU per second → millicores
	// Each runner may be busy up to the percentage of its CPU: the CPU all runners need.
	need := ceilDiv(busy*100, results.GeneratorBoundPercent)
	runners := ceilDiv(need, in.MaxRunnerMillicores)
	if runners > MaxRunners {
		return Choice{}, fmt.Errorf("sizing: %d/s at %d µs per request needs %d runners of %dm (at most %d): give each runner more CPU",
			in.Rate, in.CostMicros, runners, in.MaxRunnerMillicores, MaxRunners)
	}
	per := min(in.MaxRunnerMillicores, max(MinRunnerMillicores, ceilDiv(ceilDiv(need, runners), stepMillicores)*stepMillicores))
	c := Choice{Runners: int32(runners), RunnerMillicores: per, BusyMillicores: busy}
	c.Reason = fmt.Sprintf("%d req/s × %d µs of k6 CPU per request = %dm busy; under %d%% of each runner's CPU: %dm; %d runner(s) × %dm (at most %dm each)",
		in.Rate, in.CostMicros, busy, results.GeneratorBoundPercent, need, c.Runners, c.RunnerMillicores, in.MaxRunnerMillicores)
	return c, nil
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
