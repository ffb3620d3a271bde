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
//
// A fifth lane, Short, runs one after another the few-second tests that
// place a signal or a deadline in a run (a signal 1.5 s in, a run that
// must end within its flush budget): beside the busy parallel tests a
// slow process start would move them, and alone each left the two cores
// idle. Together about 15 s at a light load, within the sweeps' 19 s.
func TestServerBound(t *testing.T) {
	short := []struct {
		name string
		test func(*testing.T)
	}{
		{"InterruptWritesReport", interruptWritesReport},
		{"TerminateWritesReport", terminateWritesReport},
		{"InterruptedSweepWritesReports", interruptedSweepWritesReports},
		{"ProbeCLIInterrupt", probeCLIInterrupt},
		{"ShardedSweepMerges", shardedSweepMerges},
		{"OutDeadOrSlowEndpoint", outDeadOrSlowEndpoint},
	}
	for _, c := range []struct {
		name string
		test func(*testing.T)
	}{
		{"SweepKnownServerExp", func(t *testing.T) { sweepKnownServer(t, "exp") }},
		{"RateSweepSustainable", rateSweepSustainable},
		{"AbortOnStopsTheRun", abortOnStopsTheRun},
		{"OutJSONSurvivesSIGKILL", outJSONSurvivesSIGKILL},
		{"Short", func(t *testing.T) {
			for _, s := range short {
				t.Run(s.name, s.test)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.test(t)
		})
	}
}
