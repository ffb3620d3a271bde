//go:build !race

package bench_test

const raceSlackMS = 0.0

// raceOn says the race detector is on: the goroutines' stacks and heap
// it instruments are no measure of what a build without it holds.
const raceOn = false
