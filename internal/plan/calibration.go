package plan

import "fmt"

// NullResponder is the target name of calibration trials: the generator floor is measured
// against the null responder, a static server that takes no time (cmd/gauntlet
// null-responder), not against a target.
const NullResponder = "null-responder"

// WithCalibration adds one calibration trial per scenario and load point, run just before
// the first repetition's target trials of that point, and renumbers the trials. Each drives
// the same plan against the null responder: what k6 reports there is its own floor.
func WithCalibration(trials []Trial) []Trial {
	out := make([]Trial, 0, len(trials))
	seen := map[string]bool{}
	for _, t := range trials {
		key := fmt.Sprintf("%s/%d", t.Scenario, t.LoadPoint)
		if !seen[key] && t.SearchStep == 0 { // a search's rates are not known in advance: no floor
			seen[key] = true
			out = append(out, Trial{Name: fmt.Sprintf("floor-%s-%d", t.Scenario, t.LoadPoint), Target: NullResponder,
				Scenario: t.Scenario, LoadPoint: t.LoadPoint, Repetition: 1, Calibration: true})
		}
		out = append(out, t)
	}
	for i := range out {
		out[i].Index = int32(i)
	}
	return out
}
