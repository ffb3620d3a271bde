//go:build race

package bench_test

// The race detector slows every request several-fold; timing bounds widen
// by this much under it.
const raceSlackMS = 3.0

// raceOn says the race detector is on: the goroutines' stacks and heap
// it instruments are no measure of what a build without it holds.
const raceOn = true
