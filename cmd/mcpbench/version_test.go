package main

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"
)

// TestVersionSaysDrivers: version names the drivers a build has, and a
// darwin or windows build says the event loops fall back to goroutines.
func TestVersionSaysDrivers(t *testing.T) {
	var out, errb bytes.Buffer
	if code := versionMain(context.Background(), nil, env{stdout: &out, stderr: &errb}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), driversLine(runtime.GOOS)) {
		t.Fatalf("stdout %q lacks %q", out.String(), driversLine(runtime.GOOS))
	}
	if l := driversLine("linux"); !strings.Contains(l, "event-loops") {
		t.Errorf("linux: %q", l)
	}
	for _, goos := range []string{"darwin", "windows"} {
		if l := driversLine(goos); strings.Contains(l, "event-loops") || !strings.Contains(l, "goroutines on "+goos) {
			t.Errorf("%s: %q", goos, l)
		}
	}
}
