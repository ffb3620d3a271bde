package harness

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// A measurement can take minutes; a report path that cannot be written
// should cost seconds, not the measurement. CheckWritable finds such a path
// before the load, and WriteReport keeps the report when the path fails
// anyway at the end (a disk that filled up, a directory removed meanwhile).

// CheckWritable makes sure path can be written: it creates the directory
// and opens the file for writing, leaving an existing file as it was and
// removing one it had to create.
func CheckWritable(path string) error {
	if err := mkdirFor(path); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(path)
}

// WriteReport writes a report through write to path, creating the
// directory. When that fails it writes the report to a file of its own in
// the system's temporary directory instead and returns that file's name
// with the error; fallback is "" when the report could not be kept at all.
func WriteReport(path string, write func(io.Writer) error) (fallback string, err error) {
	if err = writeTo(path, write); err == nil {
		return "", nil
	}
	f, ferr := os.CreateTemp("", "mcpbench-*-"+fallbackName(path))
	if ferr != nil {
		return "", err
	}
	werr := write(f)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), err
}

// writeTo creates path and writes it through write.
func writeTo(path string, write func(io.Writer) error) error {
	if err := mkdirFor(path); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// mkdirFor creates the directory path is in.
func mkdirFor(path string) error {
	if dir := filepath.Dir(path); dir != "." {
		return os.MkdirAll(dir, 0o755)
	}
	return nil
}

// fallbackName keeps the report's own name, and so its extension, in the
// fallback file's name.
func fallbackName(path string) string {
	name := filepath.Base(path)
	if name == "." || name == string(filepath.Separator) || strings.ContainsAny(name, "*") {
		return "report"
	}
	return name
}
