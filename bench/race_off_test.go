//go:build !race

package bench_test

const raceSlackMS = 0.0
