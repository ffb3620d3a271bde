package main

import "testing"

// TestServerBound runs the tests that measure against a server of known
// capacity (slots of a fixed service time) side by side, before the
// parallel tests. Their time goes on the server's sleeps, not on the CPU:
// all of them together take about half a core of the two, so each keeps
// its bounds beside the others, which it would not beside the parallel
// tests (browsers, Node servers, busy loops). Tests whose verdict is the
// machine's own speed (sweep.txtar's knees, the shards' agreement with one
// process), or whose margins are too narrow to share even half a core
// (TestSweepKnownServer's fixed sweep), stay alone.
func TestServerBound(t *testing.T) {
	for _, c := range []struct {
		name string
		test func(*testing.T)
	}{
		{"SweepKnownServerExp", func(t *testing.T) { sweepKnownServer(t, "exp") }},
		{"RateSweepSustainable", rateSweepSustainable},
		{"AbortOnStopsTheRun", abortOnStopsTheRun},
		{"OutJSONSurvivesSIGKILL", outJSONSurvivesSIGKILL},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.test(t)
		})
	}
}
