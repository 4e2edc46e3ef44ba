package plan

import (
	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
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
	a, b := Shuffle(trials, 42, nil), Shuffle(trials, 42, nil)
	if !slices.Equal(orderOf(a), orderOf(b)) {
		t.Fatal("the same seed gave two orders")
	}
	if slices.Equal(orderOf(a), orderOf(Shuffle(trials, 43, nil))) {
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

func TestShuffleKeepsAPairsArmsTogether(t *testing.T) {
	s := spec()
	s.Load.Repetitions = 12
	s.Targets = []benchv1.Target{{Name: "go", Preset: "go-nethttp"}, {Name: "candidate", Preset: "go-nethttp", BaselineTarget: "go"},
		{Name: "other", Preset: "go-nethttp"}}
	trials, err := Build(s, presets)
	if err != nil {
		t.Fatal(err)
	}
	groups := Groups(s)
	if groups["candidate"] != s.Targets[0].Name || groups[s.Targets[0].Name] != s.Targets[0].Name || groups["other"] != "" {
		t.Fatalf("groups %v", groups)
	}
	out := Shuffle(trials, 7, groups)
	firstArm, places := map[string]int{}, map[int]int{}
	for i, tr := range out {
		if tr.Target != "candidate" {
			continue
		}
		partner := -1
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(out) && sameRound(out[j], tr) && out[j].Target == s.Targets[0].Name {
				partner = j
			}
		}
		if partner < 0 {
			t.Fatalf("trial %s is not next to its baseline's trial of the round", tr.Name)
		}
		firstArm[out[min(i, partner)].Target]++
		start := i
		for start > 0 && sameRound(out[start-1], tr) {
			start--
		}
		places[min(i, partner)-start]++
	}
	// Either arm goes first, and the pair takes either place in the round.
	if len(firstArm) != 2 || len(places) != 2 {
		t.Fatalf("first arms %v, places of the pair in its round %v", firstArm, places)
	}
}
