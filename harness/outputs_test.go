package harness

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A new file in a new directory: the directory stays, the file does not.
	fresh := filepath.Join(dir, "new", "r.json")
	if err := CheckWritable(fresh); err != nil {
		t.Fatalf("%s: %v", fresh, err)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the check left %s behind", fresh)
	}
	// An existing file is left as it was.
	if err := CheckWritable(file); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Errorf("the check changed an existing file: %q", b)
	}
	for _, bad := range []string{filepath.Join(file, "r.json"), dir} {
		if err := CheckWritable(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestWriteReportFallsBack(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", filepath.Join(dir, "tmp"))
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(w io.Writer) error { _, err := io.WriteString(w, "report"); return err }

	ok := filepath.Join(dir, "out", "r.json")
	if fb, err := WriteReport(ok, write); err != nil || fb != "" {
		t.Fatalf("a writable path: fallback %q, %v", fb, err)
	}
	if b, _ := os.ReadFile(ok); string(b) != "report" {
		t.Fatalf("wrote %q", b)
	}

	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fb, err := WriteReport(filepath.Join(file, "r.json"), write)
	if err == nil || fb == "" || !strings.HasPrefix(fb, filepath.Join(dir, "tmp", "mcpbench-")) || !strings.HasSuffix(fb, "-r.json") {
		t.Fatalf("fallback %q, error %v", fb, err)
	}
	if b, _ := os.ReadFile(fb); string(b) != "report" {
		t.Fatalf("the fallback holds %q", b)
	}

	// No temporary directory either: the caller is told nothing was kept.
	t.Setenv("TMPDIR", file)
	if fb, err := WriteReport(filepath.Join(file, "r.json"), write); err == nil || fb != "" {
		t.Fatalf("fallback %q, error %v", fb, err)
	}
}
