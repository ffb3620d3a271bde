package main

import (
	"runtime/debug"
	"testing"
)

// Reports are built with the collector at reportGCPercent, and the pace
// the process had comes back after them.
func TestReportsCollectEarlyThenThePaceComesBack(t *testing.T) {
	pace := debug.SetGCPercent(150)
	defer debug.SetGCPercent(pace)
	restore := giveBackRunMemory()
	if got := debug.SetGCPercent(reportGCPercent); got != reportGCPercent {
		t.Errorf("while reports are built the pace is %d%%, want %d%%", got, reportGCPercent)
	}
	restore()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("after the reports the pace is %d%%, want the 150%% it was", got)
	}
}
