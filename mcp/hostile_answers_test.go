package mcp

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// Unit checks of what the hostile-server suite (package hostile) found;
// the suite drives the whole binary, these pin the pieces.

func TestLineReaderSkipsOverlongLines(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 300<<10) + "\nafter\nlast"
	l := newLineReader(strings.NewReader(in), 100<<10)
	var got []string
	for {
		line, err := l.next()
		if errors.Is(err, errLineTooLong) {
			got = append(got, "(skipped)")
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	if want := "short (skipped) after last"; strings.Join(got, " ") != want {
		t.Fatalf("lines %q, want %q", got, want)
	}
}

func TestListingCutsOffEndlessCursors(t *testing.T) {
	var l listing
	if err := l.follow("tools/list", "", "a"); err != nil {
		t.Fatal(err)
	}
	if err := l.follow("tools/list", "a", "b"); err != nil {
		t.Fatal(err)
	}
	if err := l.follow("tools/list", "b", "a"); err == nil || !strings.Contains(err.Msg, "repeats") {
		t.Fatalf("a cursor seen before: %v", err)
	}
	if err := l.follow("tools/list", "", "a"); err != nil {
		t.Fatalf("a new listing starts afresh: %v", err)
	}
	if err := l.follow("tools/list", "a", strings.Repeat("c", maxCursorBytes+1)); err == nil || !strings.Contains(err.Msg, "grows") {
		t.Fatalf("an overlong cursor: %v", err)
	}
}

func TestIDMismatchSaysHow(t *testing.T) {
	for raw, want := range map[string]string{
		`"7"`: "is a string",
		`3`:   "earlier request",
		`99`:  "does not match",
		``:    "has no id",
	} {
		if sameID([]byte(raw), 7, nil) {
			t.Errorf("%s taken for 7", raw)
		}
		if e := idMismatch([]byte(raw), 7); !strings.Contains(e.Msg, want) || !e.stray {
			t.Errorf("%s: %q, want it to say %q", raw, e.Msg, want)
		}
	}
	if !sameID([]byte(" 7 "), 7, nil) {
		t.Error("7 not taken for 7")
	}
}
