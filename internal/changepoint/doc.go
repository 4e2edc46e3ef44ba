// Package changepoint finds the points where a series' level shifts: E-Divisive means
// (Matteson & James 2014, "A Nonparametric Approach for Multiple Change Point Analysis of
// Multivariate Data"), the method MongoDB's signal-processing-algorithms and Apache Otava
// (formerly Hunter) run over benchmark histories. A candidate split is the one that
// maximises the energy-distance statistic q̂ over the current segments; a permutation test
// (shuffling within each segment) gives its significance; accepted candidates split their
// segment and the search repeats until a candidate fails. As in Otava, change points whose
// relative magnitude is below a minimum are merged away afterwards, so a significant but
// negligible shift is not reported. The random numbers come from a seeded generator: the
// same series and options always give the same answer.
package changepoint
