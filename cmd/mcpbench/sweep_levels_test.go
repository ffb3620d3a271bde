package main

import "testing"

// TestSweepLevelErrorsNameTheFlag: sweep's parser speaks of values; the
// command puts the flag the text came from in front.
func TestSweepLevelErrorsNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		f    sweepFlags
		want string
	}{
		{sweepFlags{concurrencyRange: "64:1"}, `--concurrency-range "64:1": FROM (64) is above TO (1)`},
		{sweepFlags{concurrencyValues: "1,x"}, `--concurrency-values: "x" is not a positive whole number`},
		{sweepFlags{rateValues: "-5"}, `--rate-values: "-5" is not a positive number`},
		{sweepFlags{rateRange: "10:100:x1"}, `--rate-range "10:100:x1": the factor x1 must be above 1`},
	} {
		_, _, err := tc.f.levels()
		if err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %s", err, tc.want)
		}
	}
}
