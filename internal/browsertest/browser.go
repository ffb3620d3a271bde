// Package browsertest finds headless Chromium for the tests that open
// pages in it (report's HTML, the live dashboard) and gives the flags that
// keep it to the page: nothing in it is used outside tests.
package browsertest

import (
	"os"
	"os/exec"
	"testing"
)

// Chromium finds the browser. make test requires it
// (MCPBENCH_REQUIRE_BROWSER=1); a plain go test on a machine without it
// skips the browser checks and says so.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("MCPBENCH_REQUIRE_BROWSER") != "" {
		t.Fatal("no Chromium on PATH: run scripts/install-chromium.sh")
	}
	t.Skip("no Chromium on PATH: the browser checks need scripts/install-chromium.sh (make test runs it)")
	return ""
}

// Flags keep headless Chromium to the page: no sandbox (tests may run as
// root in a container), no GPU, no background traffic of its own, no
// name resolution but loopback's (nothing can leave the machine), a fresh
// profile.
func Flags(profile string) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-default-apps", "--disable-extensions", "--mute-audio",
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		"--user-data-dir=" + profile, "--window-size=1200,900",
		"--enable-logging=stderr", "--v=0",
	}
}
