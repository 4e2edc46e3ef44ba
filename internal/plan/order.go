package plan

import (
	"math/rand/v2"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// Shuffle puts the targets of every round (one repetition of one scenario at one load point,
// or one capacity-search step) in an order drawn from seed, and renumbers the trials. A fixed
// A, B, C order in every round would give the first target the machine's state after a
// floor trial and the last the one after the others: randomized interleaving (Abedi and
// Brecht, ICPE 2017) spreads such effects over every target alike. The arms of a same-run
// pair (group, from Groups) stay next to each other, in a random order: the machine drifts
// within a round too, and a pair is judged on its arms' ratio in each round. The order
// depends only on the seed, the groups and the trial list, so a recorded seed replays it.
func Shuffle(trials []Trial, seed int32, group map[string]string) []Trial {
	out := make([]Trial, 0, len(trials))
	rng := rand.New(rand.NewPCG(uint64(uint32(seed)), 0x9e3779b97f4a7c15))
	for start := 0; start < len(trials); {
		end := start + 1
		for end < len(trials) && sameRound(trials[start], trials[end]) {
			end++
		}
		// Blocks of a round: one per group, in the order its first trial appears.
		var blocks [][]Trial
		at := map[string]int{}
		for _, t := range trials[start:end] {
			key := t.Target
			if g, ok := group[t.Target]; ok {
				key = g
			}
			i, ok := at[key]
			if !ok {
				i, at[key] = len(blocks), len(blocks)
				blocks = append(blocks, nil)
			}
			blocks[i] = append(blocks[i], t)
		}
		rng.Shuffle(len(blocks), func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
		for _, b := range blocks {
			if len(b) > 1 {
				rng.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
			}
			out = append(out, b...)
		}
		start = end
	}
	for i := range out {
		out[i].Index = int32(i)
	}
	return out
}

// Groups maps each target of a same-run pair to its group's name: a baseline and every
// target judged against it, through chains (C against B against A: one group, A's). Targets
// in no pair are absent.
func Groups(spec *benchv1.BenchmarkRunSpec) map[string]string {
	baseline := map[string]string{}
	for _, t := range spec.Targets {
		if t.BaselineTarget != "" {
			baseline[t.Name] = t.BaselineTarget
		}
	}
	out := map[string]string{}
	for name := range baseline {
		root, seen := name, map[string]bool{}
		for baseline[root] != "" && !seen[root] { // seen: a cycle the API refuses ends here too
			seen[root] = true
			root = baseline[root]
		}
		out[name], out[root] = root, root
	}
	return out
}

// sameRound: trials of the same repetition, scenario and load point (or search step).
func sameRound(a, b Trial) bool {
	return a.Repetition == b.Repetition && a.Scenario == b.Scenario && a.LoadPoint == b.LoadPoint &&
		a.SearchStep == b.SearchStep && a.Calibration == b.Calibration
}

// OrderSeed is the seed a run's rounds are shuffled with: spec.load.orderSeed when set, else
// the one already recorded in status, else a fresh one in [1, 2^31).
func OrderSeed(specSeed *int32, recorded int32) int32 {
	switch {
	case specSeed != nil && *specSeed > 0:
		return *specSeed
	case recorded > 0:
		return recorded
	}
	return rand.Int32N(1<<31-1) + 1
}
