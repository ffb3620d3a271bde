package bench

import "testing"

// TestDriverChoiceByGOOS: event loops only on Linux; darwin and windows
// builds fall back to goroutines whatever --driver asked, and so do a rate
// cap and a workload that waits outside evloop.
func TestDriverChoiceByGOOS(t *testing.T) {
	cases := []struct {
		goos    string
		loops   int
		maxRate float64
		onLoops bool
		want    bool
	}{
		{"linux", 4, 0, true, true},
		{"darwin", 4, 0, true, false},
		{"windows", 4, 0, true, false},
		{"linux", 0, 0, true, false},    // --driver goroutines
		{"linux", 4, 100, true, false},  // --max-rate
		{"linux", 4, 0, false, false},   // net/http engine, scenarios
		{"windows", 0, 0, false, false}, // nothing asks for loops
		{"freebsd", 4, 0, true, false},  // no epoll
	}
	for _, c := range cases {
		if got := loopsFit(c.goos, c.loops, c.maxRate, c.onLoops); got != c.want {
			t.Errorf("loopsFit(%q, loops %d, max-rate %v, on loops %v) = %v, want %v", c.goos, c.loops, c.maxRate, c.onLoops, got, c.want)
		}
	}
}
