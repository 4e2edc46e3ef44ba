package plan

import (
	"math/rand/v2"
	"slices"
)

// Shuffle puts the targets of every round (one repetition of one scenario at one load point,
// or one capacity-search step) in an order drawn from seed, and renumbers the trials. A fixed
// A, B, C order in every round would give the first target the machine's state after a
// floor trial and the last the one after the others: randomized interleaving (Abedi and
// Brecht, ICPE 2017) spreads such effects over every target alike. The order depends only on
// the seed and the trial list, so a recorded seed replays it.
func Shuffle(trials []Trial, seed int32) []Trial {
	out := slices.Clone(trials)
	rng := rand.New(rand.NewPCG(uint64(uint32(seed)), 0x9e3779b97f4a7c15))
	for start := 0; start < len(out); {
		end := start + 1
		for end < len(out) && sameRound(out[start], out[end]) {
			end++
		}
		round := out[start:end]
		rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		start = end
	}
	for i := range out {
		out[i].Index = int32(i)
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
