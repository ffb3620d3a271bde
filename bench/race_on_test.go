//go:build race

package bench_test

// The race detector slows every request several-fold; timing bounds widen
// by this much under it.
const raceSlackMS = 3.0
