package evloop

import (
	"runtime"
	"testing"
)

// TestAvailableMatchesGOOS: the build-tagged Available agrees with the
// pure choice for the system under test, so the choice's answers for the
// other systems (tested in bench) are the ones their builds get.
func TestAvailableMatchesGOOS(t *testing.T) {
	if Available != SupportedOn(runtime.GOOS) {
		t.Fatalf("Available %v on %s, SupportedOn says %v", Available, runtime.GOOS, SupportedOn(runtime.GOOS))
	}
	for goos, want := range map[string]bool{"linux": true, "darwin": false, "windows": false, "freebsd": false} {
		if got := SupportedOn(goos); got != want {
			t.Errorf("SupportedOn(%q) = %v, want %v", goos, got, want)
		}
	}
}
