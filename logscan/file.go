package logscan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// LookbackBytes is how far before a window Mark reads to find the baseline,
// the last stats line written before the window. Servers print one every
// interval, so a short tail is enough and a large log costs nothing.
const LookbackBytes = 1 << 20

// fingerprintBytes of the file just before the offset are kept so that a
// file truncated in place and grown again past the offset is still noticed.
const fingerprintBytes = 64

// Offset is where a window starts. The zero Offset means the start of the
// file with no baseline and no known identity; Mark and MarkAt fill in the
// rest.
type Offset struct {
	// Pos is the byte offset in the file.
	Pos int64
	// Baseline is the last stats line that ended before Pos, or nil.
	Baseline *Stats

	marked bool
	// waited is how long MarkBaseline waited for a baseline line.
	waited time.Duration
	// baselineAt is when that wait saw the baseline arrive, so that the
	// watch knows the lines' interval from the first line in the window.
	baselineAt time.Time
	// lineStart is where the line holding Pos begins: Pos when Pos is at a
	// line boundary, -1 when that start lies beyond LookbackBytes.
	lineStart   int64
	info        os.FileInfo // identity, for os.SameFile
	fingerprint []byte
}

// Mark returns an Offset at the current end of the file, for a window that
// starts now. A missing file is an error that wraps fs.ErrNotExist; callers
// whose server has not created its log yet may use the zero Offset instead.
func Mark(path string) (Offset, error) {
	return mark(path, -1)
}

// MarkAt returns an Offset at byte pos of the file, with its baseline.
func MarkAt(path string, pos int64) (Offset, error) {
	if pos < 0 {
		return Offset{}, fmt.Errorf("offset %d: must not be negative", pos)
	}
	return mark(path, pos)
}

// mark does Mark (pos < 0: the end of the file) and MarkAt.
func mark(path string, pos int64) (Offset, error) {
	f, fi, err := openLog(path)
	if err != nil {
		return Offset{}, err
	}
	defer f.Close()
	if pos < 0 {
		pos = fi.Size()
	}
	if pos > fi.Size() {
		return Offset{}, fmt.Errorf("offset %d is beyond the end of %s (%d bytes)", pos, path, fi.Size())
	}

	from := max(0, pos-LookbackBytes)
	tail := make([]byte, pos-from)
	if _, err := f.ReadAt(tail, from); err != nil && !errors.Is(err, io.EOF) {
		return Offset{}, fmt.Errorf("reading %s before offset %d: %w", path, pos, err)
	}
	o := Offset{Pos: pos, marked: true, info: fi}
	o.fingerprint = bytes.Clone(tail[len(tail)-min(len(tail), fingerprintBytes):])

	// The bytes after the last newline belong to a line still open at pos.
	last := bytes.LastIndexByte(tail, '\n')
	switch {
	case last >= 0:
		o.lineStart = from + int64(last) + 1
	case from == 0:
		o.lineStart = 0
	default:
		o.lineStart = -1
	}
	complete := tail[:last+1]
	if from > 0 {
		// The lookback began inside some line; that fragment is not a line.
		if i := bytes.IndexByte(complete, '\n'); i >= 0 {
			complete = complete[i+1:]
		}
	}
	o.Baseline = lastStats(complete)
	return o, nil
}

// lastStats returns the values of the last stats line in b, or nil.
func lastStats(b []byte) *Stats {
	b = bytes.TrimSuffix(b, []byte("\n"))
	for len(b) > 0 {
		i := bytes.LastIndexByte(b, '\n')
		line := b[i+1:]
		if s, ok := ParseStatsLine(line); ok {
			return &s
		}
		if i < 0 {
			break
		}
		b = b[:i]
	}
	return nil
}

// Scan reads the file from the Offset to its current end. When the file was
// replaced since the Offset was taken (another identity), or is shorter than
// the Offset, or no longer holds the bytes it had before the Offset, it was
// rotated: the current file is read from its start and Window.Rotated is set.
// If path+".1" is the file the Offset was taken on, its tail after the Offset
// is read first. The baseline survives rotation: counters belong to the
// server process, not to the file.
func Scan(path string, from Offset) (WindowScan, error) {
	f, fi, err := openLog(path)
	if err != nil {
		return WindowScan{}, err
	}
	defer f.Close()
	size := fi.Size()

	a := newAccumulator(from.Baseline)
	a.res.Path = path
	w := &a.res.Window

	rotated := from.Pos > size ||
		(from.info != nil && !os.SameFile(from.info, fi)) ||
		!sameFingerprint(f, from)
	if rotated {
		w.Rotated = true
		if old, ok := rotatedAway(path, from); ok {
			n, err := readWindow(a, old.f, from, old.size)
			old.f.Close()
			if err != nil {
				return WindowScan{}, fmt.Errorf("%s: %w", old.path, err)
			}
			w.RotatedFrom = old.path
			w.Bytes += n
		}
		from = Offset{}
	}

	w.StartOffset = from.Pos
	w.EndOffset = size
	w.Bytes += size - from.Pos
	start, head := windowStart(f, from)
	_, partial, err := a.read(io.NewSectionReader(f, start, size-start), head)
	if err != nil {
		return WindowScan{}, fmt.Errorf("%s: %w", path, err)
	}
	w.PartialLastLine = partial
	return a.finish(), nil
}

// readWindow reads a rotated-away file's tail into a and returns the window
// bytes it held. Its last line, if unterminated, is not read either.
func readWindow(a *accumulator, f *os.File, from Offset, size int64) (int64, error) {
	start, head := windowStart(f, from)
	if _, _, err := a.read(io.NewSectionReader(f, start, size-start), head); err != nil {
		return 0, err
	}
	return size - from.Pos, nil
}

// windowStart says where to begin reading and how to take the first line.
// When the window begins inside a line, that line was written (or begun)
// before the window: read whole, it can serve as the baseline; when its start
// is unknown its tail is dropped.
func windowStart(f *os.File, from Offset) (int64, int) {
	switch {
	case from.Pos == 0:
		return 0, headInWindow
	case from.marked && from.lineStart == from.Pos:
		return from.Pos, headInWindow
	case from.marked && from.lineStart >= 0:
		return from.lineStart, headBefore
	case from.marked:
		return from.Pos, headFragment
	}
	// An Offset made by hand: look at the byte before it.
	var b [1]byte
	if _, err := f.ReadAt(b[:], from.Pos-1); err == nil && b[0] == '\n' {
		return from.Pos, headInWindow
	}
	return from.Pos, headFragment
}

// sameFingerprint reports whether the bytes before the Offset are still the
// ones Mark saw. Without a fingerprint there is nothing to compare.
func sameFingerprint(f *os.File, from Offset) bool {
	if len(from.fingerprint) == 0 {
		return true
	}
	got := make([]byte, len(from.fingerprint))
	if _, err := f.ReadAt(got, from.Pos-int64(len(got))); err != nil {
		return false
	}
	return bytes.Equal(got, from.fingerprint)
}

type openFile struct {
	path string
	f    *os.File
	size int64
}

// rotatedAway finds the file the Offset was taken on under its rotated name,
// if it is still there and still holds the Offset.
func rotatedAway(path string, from Offset) (openFile, bool) {
	if from.info == nil {
		return openFile{}, false
	}
	old := path + ".1"
	f, fi, err := openLog(old)
	if err != nil {
		return openFile{}, false
	}
	if !os.SameFile(from.info, fi) || fi.Size() < from.Pos || !sameFingerprint(f, from) {
		f.Close()
		return openFile{}, false
	}
	return openFile{path: old, f: f, size: fi.Size()}, true
}

// openLog opens a regular file and returns its FileInfo, taken from the open
// file so that identity and size describe what is read.
func openLog(path string) (*os.File, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("opening log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("opening log: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: not a regular file", path)
	}
	return f, fi, nil
}
