// Package abstat judges paired A/B rounds: each round measures A and B once,
// and the evidence is the log-ratio ln(B/A) of each round, never the single
// requests inside a round (which are not independent samples).
//
// # The test and the interval
//
// A metric's rounds are tested with Wilcoxon's signed-rank test on the
// log-ratios (SignedRankTest): exact distribution for fewer than 50
// non-zero differences without ties, else the normal approximation with
// R's corrections (zeros dropped, tie correction of the variance,
// continuity correction). The estimated change is the Hodges–Lehmann
// estimate (the median of the Walsh averages) turned back into B/A − 1,
// with the distribution-free interval that inverts the same test
// (WalshInterval). Both are computed here by hand: gonum has neither a
// signed-rank test nor ranks; it supplies the normal distribution.
//
// # Verdicts
//
// At a look with level a, a metric is
//   - a regression or an improvement (by the metric's direction: more
//     throughput is better, more of the others is worse) when p < a and the
//     estimated change is at least the minimum effect in size;
//   - no_change when the whole 1 − a interval of the change lies within
//     ± the minimum effect;
//   - undecided otherwise, which the last look reports as inconclusive.
//
// A decision is final: later looks do not revisit a decided metric.
//
// # Repeated looks: alpha spending
//
// Rounds are added until every gated metric is decided or the plan's
// maximum is reached. Looking again after every few rounds would inflate
// the false-alarm rate, so each look k gets its own level a_k from a
// Lan–DeMets spending function f(t) of the information fraction
// t = rounds / MaxRounds:
//
//	a_k = f(t_k) − f(t_{k−1}),  f(0) = 0,  f(1) = Alpha
//
// with the O'Brien–Fleming-type f(t) = 2 − 2·Φ(z_{1−Alpha/2} / √t) by
// default (it keeps most of Alpha for the last looks, where the most rounds
// are) or the Pocock-type f(t) = Alpha·ln(1 + (e − 1)·t) (it spends more
// early, so a clear change stops a little sooner, at a cost in power at
// the end). In simulations of a 5% change on p50 with lognormal noise
// (sim_test.go), O'Brien–Fleming found it in 100% of trials at 3% CV
// (about 17 rounds), 94% at 6% CV with 60 rounds at most, 79% at 9% CV with
// 100; Pocock found 56% and 19% of those with 40 rounds, against 70% and
// 31% for O'Brien–Fleming. Each look is judged at its own a_k alone, and the a_k add up to
// at most Alpha, so by the union bound the chance of any false alarm (a
// regression or improvement where there is none) over all looks is at most
// Alpha, whenever the looks happen; likewise the chance of calling a change of
// at least the minimum effect "no change" is at most Alpha/2. The bound
// ignores that successive looks share rounds, so the true rate is below
// Alpha (the simulation test measures it); exact group-sequential boundaries
// would be sharper and are left for later. Because only the a_k's sum
// matters, a run that must stop early (its time budget spent) takes its last
// look at once with all the alpha its earlier looks left unspent.
package abstat
