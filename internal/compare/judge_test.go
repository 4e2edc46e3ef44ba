package compare

import (
	"math/rand/v2"
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// around draws n latencies around center with a relative jitter (uniform ±jitter).
func around(rng *rand.Rand, n int, center, jitter float64) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(center * (1 + jitter*(2*rng.Float64()-1)))
	}
	return v
}

func TestJudgeVerdicts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const fivePercent = 50_000
	for _, c := range []struct {
		name      string
		base, cur []int64
		want      benchv1.RegressionVerdict
	}{
		{"20% slower, 2% jitter", around(rng, 6, 1000, 0.02), around(rng, 6, 1200, 0.02), benchv1.VerdictSlower},
		{"20% faster", around(rng, 6, 1000, 0.02), around(rng, 6, 800, 0.02), benchv1.VerdictFaster},
		{"same, 1% jitter", around(rng, 6, 1000, 0.01), around(rng, 6, 1000, 0.01), benchv1.VerdictNoChange},
		{"2% slower, significant but under the effect", []int64{1000, 1001, 1002, 1003, 1004}, []int64{1020, 1021, 1022, 1023, 1024}, benchv1.VerdictNoChange},
		{"noisy: 10% apart, 40% jitter", []int64{700, 1300, 900, 1100}, []int64{1400, 800, 1000, 1200}, benchv1.VerdictInconclusive},
		{"3 a side, far apart", []int64{1000, 1001, 1002}, []int64{2000, 2001, 2002}, benchv1.VerdictInconclusive},
	} {
		got := Judge(c.base, c.cur, fivePercent)
		if got.Verdict != c.want {
			t.Errorf("%s: %s (%s, p %s, %s), want %s", c.name, got.Verdict, FormatShift(got), got.PValue, got.Message, c.want)
		}
		if got.Verdict == benchv1.VerdictInconclusive && got.Message == "" {
			t.Errorf("%s: an Inconclusive verdict must say why", c.name)
		}
	}
	// Separation at 4 a side: p = 2/70, shift of +100 µs on a median of 1001 µs.
	got := Judge([]int64{1000, 1001, 1002, 1003}, []int64{1100, 1101, 1102, 1103}, fivePercent)
	if got.PValue != "0.0286" || got.ShiftMicros != 100 || got.BaselineMicros != 1001 || got.ShiftPPM != 99900 ||
		*got.ShiftLowPPM != 96903 || *got.ShiftHighPPM != 102897 || got.Verdict != benchv1.VerdictSlower {
		t.Fatalf("%+v", got)
	}
	// Equivalence is judged on the 90% interval (two one-sided tests at alpha 0.05): here
	// the 95% interval reaches -5.0%, the 90% one lies inside ±5%.
	eq := Judge([]int64{1000, 1030, 970, 1045, 960, 1010}, []int64{1005, 975, 1040, 990, 1020, 960}, fivePercent)
	if eq.Verdict != benchv1.VerdictNoChange || *eq.ShiftLowPPM > -49_000 {
		t.Fatalf("equivalence: %s %s", eq.Verdict, FormatShift(eq))
	}
	if FormatShift(got) != "+10.0% [+9.7, +10.3]" {
		t.Fatalf("FormatShift: %s", FormatShift(got))
	}
}

// A real slowdown of twice the minimum effect is found at every sample size a verdict
// allows, with latency-like (skewed) noise of 3%.
func TestJudgePower(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, n := range []int{4, 6, 10} {
		found := 0
		for i := 0; i < 200; i++ {
			base, cur := skewed(rng, n, 1000), skewed(rng, n, 1100)
			if Judge(base, cur, 50_000).Verdict == benchv1.VerdictSlower {
				found++
			}
		}
		if found < 150 {
			t.Errorf("n=%d: a 10%% slowdown was found in %d of 200 draws", n, found)
		}
	}
}

// With no change at all, Slower or Faster comes up at most about alpha of the time: the
// minimum effect makes it rarer still.
func TestJudgeFalsePositives(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{4, 6, 10} {
		wrong := 0
		for i := 0; i < 2000; i++ {
			if v := Judge(skewed(rng, n, 1000), skewed(rng, n, 1000), 50_000).Verdict; v == benchv1.VerdictSlower || v == benchv1.VerdictFaster {
				wrong++
			}
		}
		if rate := float64(wrong) / 2000; rate > Alpha {
			t.Errorf("n=%d: %.3f false verdicts", n, rate)
		}
	}
}

func skewed(rng *rand.Rand, n int, center float64) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(center * (0.98 + 0.03*rng.ExpFloat64()))
	}
	return v
}

func TestOptionsFrom(t *testing.T) {
	o, err := OptionsFrom(nil)
	if err != nil || o.Metric != "p50" || o.MinEffectPPM != 50_000 {
		t.Fatalf("defaults: %+v %v", o, err)
	}
	o, err = OptionsFrom(&benchv1.Baseline{Run: "a", Metric: "p99", MinEffect: "0.1"})
	if err != nil || o.Metric != "p99" || o.MinEffectPPM != 100_000 {
		t.Fatalf("%+v %v", o, err)
	}
	for _, b := range []benchv1.Baseline{{MinEffect: "0"}, {MinEffect: "0.0"}, {MinEffect: "1.5"}, {MinEffect: "5%"}, {Metric: "p42"}} {
		_, err := OptionsFrom(&b)
		field := "spec.baseline.minEffect"
		if b.Metric != "" {
			field = "spec.baseline.metric"
		}
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%+v: %v, want an error naming %s", b, err, field)
		}
	}
}
