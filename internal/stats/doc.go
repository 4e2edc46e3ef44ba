// Package stats holds the two-sample statistics of regression verdicts: the Mann-Whitney U
// test (Wilcoxon rank-sum) and the Hodges-Lehmann shift with its distribution-free
// confidence interval. Both are rank methods: they assume nothing about the shape of a
// latency distribution, only that repetitions are exchangeable, which is why benchstat and
// the statistics literature use them for benchmark comparisons. Sample sizes here are
// repetitions (at most 20 a side), so exact distributions are cheap and always used.
package stats
