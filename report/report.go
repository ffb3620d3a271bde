// Package report renders what mcpbench measured for people and programs:
// it turns the values of package results into JSON, Markdown, SVG and
// JUnit, and nothing else. Each report kind lists its formats in a table
// (formats.go) that the commands loop over.
package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// writeIndented writes v as indented JSON, the form of every report,
// except that an array of plain values (numbers, strings) stays on one
// line: a time series is columns of thousands of numbers, which one per
// line would turn into tens of thousands of lines. encoding/json's
// indenter has no such option, hence the few lines below. The compact
// text goes from the encoder's own buffer through the indenter straight
// to w: a long soak's report is megabytes, and a copy of it and an
// indented copy raised the generator's peak memory at the end of a run.
func writeIndented(w io.Writer, v any) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := json.NewEncoder(indenter{bw}).Encode(v); err != nil {
		return err
	}
	return bw.Flush()
}

// indenter indents each compact JSON text written to it (the encoder
// writes a value in one call, with a newline after it).
type indenter struct{ w *bufio.Writer }

func (in indenter) Write(src []byte) (int, error) {
	indentJSON(in.w, bytes.TrimSuffix(src, []byte("\n")), "  ")
	return len(src), nil
}

// indentJSON writes the compact JSON src as json.Indent would, but with
// flat arrays kept whole. Write errors stay in b for its Flush.
func indentJSON(b *bufio.Writer, src []byte, indent string) {
	depth := 0
	newline := func() {
		b.WriteByte('\n')
		for range depth {
			b.WriteString(indent)
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := stringEnd(src, i)
			b.Write(src[i : j+1])
			i = j
		case '{', '[':
			if end := flatArrayEnd(src, i); end > 0 {
				b.Write(src[i : end+1])
				i = end
				continue
			}
			b.WriteByte(c)
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			b.WriteByte(c)
		case ',':
			b.WriteByte(',')
			newline()
		case ':':
			b.WriteString(": ")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\n')
}

// stringEnd is the index of the quote closing the string opening at i.
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(src) - 1
}

// flatArrayEnd is the index of the bracket closing the array or object at
// i when it holds no array or object (an empty object counts too); 0 when
// it is not flat, or is an object with members.
func flatArrayEnd(src []byte, i int) int {
	if src[i] == '{' {
		if i+1 < len(src) && src[i+1] == '}' {
			return i + 1
		}
		return 0
	}
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '"':
			j = stringEnd(src, j)
		case '{', '[':
			return 0
		case ']':
			return j
		}
	}
	return 0
}
