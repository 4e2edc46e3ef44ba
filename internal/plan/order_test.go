package plan

import (
	"slices"
	"testing"
)

func orderOf(trials []Trial) []string {
	var out []string
	for _, t := range trials {
		out = append(out, t.Name)
	}
	return out
}

func TestShuffleKeepsRoundsAndReplaysFromTheSeed(t *testing.T) {
	s := spec()
	s.Load.Repetitions = 6
	trials, err := Build(s, presets)
	if err != nil {
		t.Fatal(err)
	}
	a, b := Shuffle(trials, 42), Shuffle(trials, 42)
	if !slices.Equal(orderOf(a), orderOf(b)) {
		t.Fatal("the same seed gave two orders")
	}
	if slices.Equal(orderOf(a), orderOf(Shuffle(trials, 43))) {
		t.Fatal("seeds 42 and 43 gave the same order of every round")
	}
	if len(a) != len(trials) {
		t.Fatalf("%d trials after the shuffle, %d before", len(a), len(trials))
	}
	// Every round keeps its trials (only their order changes), and the indexes follow the order.
	for i := range a {
		if a[i].Index != int32(i) {
			t.Fatalf("trial %d has index %d", i, a[i].Index)
		}
		if !sameRound(a[i], trials[i]) {
			t.Fatalf("trial %d moved out of its round: %s where %s was", i, a[i].Name, trials[i].Name)
		}
	}
	// Over the rounds, the first slot does not always go to the same target.
	firsts := map[string]bool{}
	for i, tr := range a {
		if i == 0 || !sameRound(a[i-1], tr) {
			firsts[tr.Target] = true
		}
	}
	if len(firsts) < 2 {
		t.Fatalf("every round starts with %v", firsts)
	}
}

func TestOrderSeed(t *testing.T) {
	seven := int32(7)
	if got := OrderSeed(&seven, 9); got != 7 {
		t.Fatalf("the spec's seed 7 gave %d", got)
	}
	if got := OrderSeed(nil, 9); got != 9 {
		t.Fatalf("the recorded seed 9 gave %d", got)
	}
	if got := OrderSeed(nil, 0); got < 1 {
		t.Fatalf("a drawn seed is %d, not positive", got)
	}
}
