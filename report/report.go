// Package report renders what mcpbench measured for people and programs:
// it turns the values of package results into JSON, Markdown, SVG and
// JUnit, and nothing else. Each report kind lists its formats in a table
// (formats.go) that the commands loop over.
package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

// writeIndented writes v as indented JSON, the form of every report,
// except that an array of plain values (numbers, strings) stays on one
// line: a time series is columns of thousands of numbers, which one per
// line would turn into tens of thousands of lines. encoding/json's
// indenter has no such option, hence the few lines below.
func writeIndented(w io.Writer, v any) error {
	src, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.Grow(len(src) + len(src)/4)
	indentJSON(&b, src, "  ")
	_, err = w.Write(b.Bytes())
	return err
}

// indentJSON writes the compact JSON src as json.Indent would, but with
// flat arrays kept whole.
func indentJSON(b *bytes.Buffer, src []byte, indent string) {
	depth := 0
	newline := func() {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(indent, depth))
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
