package workload

// Mix chooses the request of each iteration deterministically: position
// (iteration × stride mod total) falls into one request's slice of the cumulative
// weights. Over any total consecutive iterations each request runs exactly Weight times,
// interleaved rather than in runs, and every target sees the same sequence.
// loadgen/bench.js computes the same formula from the plan's cumWeight and mixStride.
type Mix struct {
	CumWeights []int // CumWeights[i] = Weight[0] + ... + Weight[i]
	Total      int
	Stride     int
}

// NewMix builds the mix of validated requests.
func NewMix(reqs []Request) Mix {
	m := Mix{CumWeights: make([]int, len(reqs))}
	for i, r := range reqs {
		m.Total += r.Weight
		m.CumWeights[i] = m.Total
	}
	m.Stride = SpreadStride(m.Total)
	return m
}

// Pick is the index of the request run by the given iteration.
func (m Mix) Pick(iteration int64) int {
	total := int64(m.Total)
	pos := int((iteration % total) * int64(m.Stride) % total)
	for i, c := range m.CumWeights {
		if pos < c {
			return i
		}
	}
	return len(m.CumWeights) - 1 // unreachable for a mix built by NewMix
}
