// Package abstat judges paired A/B rounds: each round measures A and B once,
// and the evidence is the log-ratio ln(B/A) of each round, never the single
// requests inside a round (which are not independent samples).
//
// # The test and the interval
//
// A metric's rounds are tested with Wilcoxon's signed-rank test on the
// log-ratios (SignedRankTest), zeros dropped: for fewer than 50 non-zero
// differences the exact distribution, conditional on the midranks where
// some are tied (figures read in ticks, such as CPU time, tie often);
// from 50 on the normal approximation with R's corrections (tie
// correction of the variance, continuity correction). The estimated
// change is the Hodges–Lehmann estimate (the median of the Walsh averages) turned back into B/A − 1,
// with the distribution-free interval that inverts the same test
// (WalshInterval). Both are computed here by hand: gonum has neither a
// signed-rank test nor ranks; it supplies the normal distribution.
//
// # Verdicts
//
// At a look with alarm level a and no-change level e (Levels), a metric is
//   - a regression or an improvement (by the metric's direction: more
//     throughput is better, more of the others is worse) when p < a and the
//     estimated change is at least the minimum effect in size;
//   - no_change when the whole 1 − 2e interval of the change lies within
//     ± the minimum effect: two one-sided tests, each at e (TOST,
//     Schuirmann 1987), that the change is above −minimum and below
//     +minimum;
//   - undecided otherwise, which the last look reports as inconclusive.
//
// A decision is final: later looks do not revisit a decided metric.
//
// # Two error rates
//
// The errors differ in what they cost, so each has its own alpha. A false
// alarm fails a gate on identical builds: Plan.Alpha bounds how often that
// happens over all the gated metrics together. Each of the k gated metrics
// is tested at 2·Alpha/k two-sided (Sequential.AlarmAlpha), so that its
// regression side is Alpha/k and the k sides add up to Alpha (Bonferroni:
// it holds however the metrics' noise is correlated). A missed change is
// a change of at least the minimum effect called no_change: NoChangeAlpha
// bounds it for each metric and direction. Judging both at one per-metric
// alpha, as the first version did, let three gated metrics at 0.05 fail
// identical builds in up to 7.5% of experiments.
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
// Each alpha is spent this way on its own schedule of levels. The
// no-change levels bound the missed change: calling a change of at least
// the minimum effect "no change" means one of the one-sided tests
// rejected it, the same test at the look's level for the shifted
// differences, so that error is at most NoChangeAlpha in each direction.
//
// Measured by TestOperatingFigures (ABSTAT_FIGURES=1), lognormal noise of
// a CV on both sides, looks at every round from 6 to 30 unless said: the
// gate failed identical sides in 4.8% of 10,000 experiments at alpha
// 0.05 with one gated metric at 6% CV (Pocock 4.6%), 0.97% of 20,000 at
// the default 0.01, and 0.98% of 10,000 with three gated metrics at
// 0.01. A 5% slowdown of one metric was found in 100% of 1,000 at 3% CV
// (19 rounds on average, at most 40) and 95.8% at 6% CV (at most 60,
// looking every 2; 39 on average). With the ab trials' plan (three gated
// metrics, 3% minimum effect, 38 rounds, alpha 0.01), 100% of 2,000
// A/As ended with all three no_change at 2% CV, 97.5% at 2.8% (0.05%
// failed the gate) and only 44% at 4.2%; a 5% slowdown of all three was
// found in 100% at 2.8% CV and 96.2% at 4.2%.
// So an A/A left inconclusive says the rounds were too noisy for the
// budget, not that the method has failed.
package abstat
