package changepoint

import "math"

// candidate is the best split of one segment: index is the first point of the right part
// (series-wide), qhat the statistic there.
type candidate struct {
	index int
	qhat  float64
}

// qhatScratch holds the column-prefix matrix between calls, so the permutation test does
// not allocate per shuffle.
type qhatScratch struct{ col []float64 }

// best returns the split of z that maximises q̂(X, Y) over every τ (X = z[:τ]) and κ
// (Y = z[τ:κ]), 0 < τ < κ <= len(z), with
//
//	q̂ = 2/(m+n) Σ|Xi-Yj| - 2m/((m+n)(n-1)) Σi<k|Xi-Xk| - 2n/((m+n)(m-1)) Σj<k|Yj-Yk|
//
// (n = |X|, m = |Y|; a sum over fewer than two points is 0), which is Matteson & James's
// mn/(m+n)·Ê written out. Ties go to the smallest τ, then κ, as numpy's argmax does in
// Otava. Every q̂ is O(1) from running sums over the column prefixes of the distance matrix,
// so one segment costs O(len²). ok is false for fewer than two points.
func (s *qhatScratch) best(z []float64) (tau int, q float64, ok bool) {
	L := len(z)
	if L < 2 {
		return 0, 0, false
	}
	// col[k*(L+1)+i] = Σ_{r<i} |z_r - z_k|: column k's prefix down to row i.
	need := L * (L + 1)
	if cap(s.col) < need {
		s.col = make([]float64, need)
	}
	col := s.col[:need]
	for k := 0; k < L; k++ {
		c := col[k*(L+1) : (k+1)*(L+1)]
		c[0] = 0
		for i := 0; i < L; i++ {
			c[i+1] = c[i] + math.Abs(z[i]-z[k])
		}
	}
	q, tau = math.Inf(-1), 0
	sxx := 0.0 // Σ_{i<k<τ} |z_i - z_k|
	for t := 1; t < L; t++ {
		sxx += col[(t-1)*(L+1)+t-1] // column t-1 down to row t-1 joins X
		n := float64(t)
		sxy, syy := 0.0, 0.0
		for k := t; k < L; k++ { // Y grows by z[k]: κ = k+1
			ck := col[k*(L+1) : (k+1)*(L+1)]
			sxy += ck[t]
			syy += ck[k] - ck[t]
			m := float64(k + 1 - t)
			v := 2 / (m + n) * sxy
			if n > 1 {
				v -= 2 * m / ((m + n) * (n - 1)) * sxx
			}
			if m > 1 {
				v -= 2 * n / ((m + n) * (m - 1)) * syy
			}
			if v > q {
				q, tau = v, t
			}
		}
	}
	return tau, q, true
}
