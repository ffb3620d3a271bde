package mcp

import (
	"bufio"
	"errors"
	"io"
)

// lineReader reads the newline-delimited messages of a stdio server. A
// line longer than the limit is skipped, not kept: a server that prints
// one must not stop the reading of every answer after it (as a
// bufio.Scanner would), nor make the client hold it.
type lineReader struct {
	r    *bufio.Reader
	line []byte
	max  int
}

var errLineTooLong = errors.New("line longer than the answer limit")

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its newline, valid until the next
// call; errLineTooLong for a line it skipped; the read error at the end (a
// last line without a newline is returned first).
func (l *lineReader) next() ([]byte, error) {
	l.line = l.line[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		n := len(l.line) + len(chunk)
		if err == nil {
			n-- // the newline is not part of the line
		}
		if n > l.max {
			l.line = l.line[:0]
			return nil, l.skip(err)
		}
		l.line = append(l.line, chunk...)
		switch {
		case err == nil:
			return l.line[:len(l.line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case len(l.line) > 0:
			return l.line, nil // the last line, without a newline
		default:
			return nil, err
		}
	}
}

// skip reads past the rest of an overlong line; err is the last read's.
func (l *lineReader) skip(err error) error {
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = l.r.ReadSlice('\n')
	}
	if err != nil {
		return err
	}
	return errLineTooLong
}
