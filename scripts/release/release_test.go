// Package release holds the test of scripts/release/release.sh (make
// release); the package has no code of its own.
package release

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReleaseScript builds one non-Linux target with release.sh (all six
// take minutes; make release builds them) and checks the binary's name,
// what it was built for (its build information), its stamp (the -X
// strings are in its bytes: a windows binary cannot run here, and
// -trimpath leaves ldflags out of the build information) and the checksum
// file, which sha256sum -c accepts.
func TestReleaseScript(t *testing.T) {
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Fatalf("sha256sum: %v", err)
	}
	out := t.TempDir()
	cmd := exec.Command("bash", "release.sh")
	cmd.Env = append(os.Environ(), "OUT="+out, "TARGETS=windows/arm64", "VERSION=v9.8.7-test", "COMMIT=abc1234")
	start := time.Now()
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("release.sh: %v\n%s", err, b)
	}
	t.Logf("one target in %s", time.Since(start).Round(time.Second))
	bin := filepath.Join(out, "mcpbench_v9.8.7-test_windows_arm64.exe")
	info, err := exec.Command("go", "version", "-m", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("go version -m: %v\n%s", err, info)
	}
	for _, want := range []string{"GOOS=windows", "GOARCH=arm64", "CGO_ENABLED=0", "-trimpath=true"} {
		if !strings.Contains(string(info), want) {
			t.Errorf("build information lacks %q:\n%s", want, info)
		}
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, stamp := range []string{"v9.8.7-test", "abc1234"} {
		if !bytes.Contains(exe, []byte(stamp)) {
			t.Errorf("the binary does not carry the stamp %q", stamp)
		}
	}
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(sums)), "  mcpbench_v9.8.7-test_windows_arm64.exe") {
		t.Fatalf("SHA256SUMS %q (%v)", sums, err)
	}
	check := exec.Command("sha256sum", "-c", "SHA256SUMS")
	check.Dir = out
	if b, err := check.CombinedOutput(); err != nil {
		t.Fatalf("sha256sum -c: %v\n%s", err, b)
	}
}
