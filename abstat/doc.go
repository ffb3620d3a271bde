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
//   - no_change when the whole 1 − 2a interval of the change lies within
//     ± the minimum effect: two one-sided tests, each at a (TOST,
//     Schuirmann 1987), that the change is above −minimum and below
//     +minimum;
//   - undecided otherwise, which the last look reports as inconclusive.
//
// A decision is final: later looks do not revisit a decided metric.
//
// # Repeated looks: alpha spending
//
// Rounds are added until every gated metric is decided or the plan's
// maximum is reached. Looking again after every few rounds would inflate
// the false-alarm rate (judging 25 looks each at 5% alarms in about 21% of
// A/A experiments), so each look k gets a share a_k of Alpha from a
// Lan–DeMets spending function f(t) of the information fraction
// t = rounds / MaxRounds:
//
//	a_k = f(t_k) − f(t_{k−1}),  f(0) = 0,  f(1) = Alpha
//
// with the O'Brien–Fleming-type f(t) = 2 − 2·Φ(z_{1−Alpha/2} / √t) by
// default (it keeps most of Alpha for the last looks, where the most rounds
// are) or the Pocock-type f(t) = Alpha·ln(1 + (e − 1)·t) (it spends more
// early, but the early looks have too few rounds for the exact test to use
// it, so it finds less).
//
// Each look's nominal level is then set so that the chance that this look
// is the first to raise an alarm under H0 is its share (levels,
// calibrate.go): the signed-rank statistic's law over the looks does not
// depend on the distribution of the differences (only on their signs, fair
// coins, and the ranks of their sizes), so simulated null experiments
// (20,000, fewer for plans over 173 rounds) from a fixed seed give it, once
// per plan. Each look may alarm as often as the alpha spent so far allows,
// less the alarms of the looks before it; the count aims one Monte Carlo
// standard error low, and a level fitted to the simulated experiments is
// charged the one extra experiment's worth it alarms on new ones. Looks
// share rounds and mostly alarm together, so these levels are well above
// the shares that the plain union bound would allow (0.025 against 0.0038
// at the default plan's last look), and find more. While the alpha spent
// so far comes to fewer than 25 simulated alarms, a look keeps its share
// as its level, which the union bound covers. An experiment that must stop
// early (its time budget spent) takes its last look at once at the level
// of all the alpha its earlier looks left unspent, by the union bound;
// one that learns from its first rounds how many its budget holds
// refits its plan to them before the first look (Sequential.Refit), so
// that its last look is calibrated like any plan's.
//
// The same levels bound the other error: calling a change of at least the
// minimum effect "no change" means one of the one-sided tests rejected it,
// the same test at the look's level for the shifted differences, so that
// error is at most Alpha in each direction (the alarms' is Alpha/2).
//
// Measured by TestOperatingFigures (ABSTAT_FIGURES=1), p50 with lognormal
// noise on both sides: with the default plan (Alpha 0.05,
// O'Brien–Fleming, a look at every round from 6 to 30) false alarms in
// 4.8% of 10,000 A/A experiments at 6% CV (Pocock 4.6%; Alpha 0.01: 0.98%
// of 20,000). A 5% slowdown was found in 100% of experiments at 3% CV
// (about 14 rounds; 21 with Alpha 0.01), 98.8% at 6% CV with at most 60
// rounds, looking every 2 (32 on average; 92.6% in 42 with Alpha 0.01),
// 93.4% at 9% CV with at most 100 (62 on average). With the ab trials'
// plan (3% minimum effect, 38 rounds) at a log-ratio spread of 4% (CV
// 2.8% a side), 99.0% of 2,000 A/As end in no_change and 0.85%
// inconclusive; at 6% (CV 4.2%), 77% and 21% (judging no_change by the
// 1 − a interval left 37% of another 2,000 inconclusive), and a 5%
// slowdown is found in 98.9%.
// So an A/A left inconclusive says the rounds were too noisy for the
// budget, not that the method has failed.
package abstat
