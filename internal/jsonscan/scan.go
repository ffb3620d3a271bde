// Package jsonscan is a small validating JSON scanner that finds the
// values of a few members of an object without decoding it: it checks the
// syntax of the whole text, allocates nothing, and returns sub-slices of
// the input. mcp classifies every answer with it.
package jsonscan

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// A JSON-RPC answer is classified from four top-level members, and a tool
// result from two of its own. Decoding the whole document with
// encoding/json allocated on every answer, so the hot path walks it with
// this scanner instead.

var errJSONSyntax = errors.New("malformed JSON")

// maxJSONDepth bounds nesting, as encoding/json does, so a hostile answer
// cannot make the scanner recurse without end.
const maxJSONDepth = 10000

// Members finds the values of the keys in want among the members of the
// JSON object in b, stores them (raw, sub-slices of b) in out, and checks
// that b is exactly one well-formed JSON object. A key given twice keeps
// its last value, as encoding/json does. Keys are compared as written
// (escaped keys never match), which suffices for protocol member names.
func Members(b []byte, want [][]byte, out [][]byte) error {
	return MembersWithin(b, want, out, nil, nil, nil)
}

// MembersWithin is members that also collects, in the same pass, the keys
// in innerWant of the object under the key inner (into innerOut): a
// JSON-RPC answer and the result inside it, read once.
func MembersWithin(b []byte, want, out [][]byte, inner []byte, innerWant, innerOut [][]byte) error {
	for i := range innerOut {
		innerOut[i] = nil
	}
	i := SkipSpace(b, 0)
	end, err := scanObject(b, i, want, out, inner, innerWant, innerOut, 1)
	if err != nil {
		return err
	}
	return trailing(b, end)
}

// scanObject scans the object starting at b[i], collecting the wanted
// Members (and those of the inner object, if asked), and returns the index
// just past it.
func scanObject(b []byte, i int, want, out [][]byte, inner []byte, innerWant, innerOut [][]byte, depth int) (int, error) {
	for k := range out {
		out[k] = nil
	}
	if i >= len(b) || b[i] != '{' {
		return 0, errJSONSyntax
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, errJSONSyntax
		}
		end, err := skipString(b, i)
		if err != nil {
			return 0, err
		}
		key := b[i+1 : end-1]
		i = SkipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, errJSONSyntax
		}
		i = SkipSpace(b, i+1)
		var vend int
		if inner != nil && string(key) == string(inner) && i < len(b) && b[i] == '{' {
			vend, err = scanObject(b, i, innerWant, innerOut, nil, nil, nil, depth+1)
		} else {
			vend, err = SkipValue(b, i, depth)
		}
		if err != nil {
			return 0, err
		}
		for k, w := range want {
			if string(key) == string(w) {
				out[k] = b[i:vend]
			}
		}
		i = SkipSpace(b, vend)
		if i >= len(b) {
			return 0, errJSONSyntax
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, errJSONSyntax
		}
	}
}

func trailing(b []byte, i int) error {
	if SkipSpace(b, i) != len(b) {
		return errJSONSyntax
	}
	return nil
}

func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// SkipValue returns the index just past the JSON value starting at b[i].
func SkipValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, errJSONSyntax
	}
	if depth > maxJSONDepth {
		return 0, errJSONSyntax
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{':
		return skipComposite(b, i, '}', true, depth)
	case c == '[':
		return skipComposite(b, i, ']', false, depth)
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return skipNumber(b, i)
	}
	return 0, errJSONSyntax
}

func skipComposite(b []byte, i int, closer byte, object bool, depth int) (int, error) {
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == closer {
		return i + 1, nil
	}
	for {
		if object {
			if i >= len(b) || b[i] != '"' {
				return 0, errJSONSyntax
			}
			end, err := skipString(b, i)
			if err != nil {
				return 0, err
			}
			i = SkipSpace(b, end)
			if i >= len(b) || b[i] != ':' {
				return 0, errJSONSyntax
			}
			i = SkipSpace(b, i+1)
		}
		end, err := SkipValue(b, i, depth+1)
		if err != nil {
			return 0, err
		}
		i = SkipSpace(b, end)
		if i >= len(b) {
			return 0, errJSONSyntax
		}
		if b[i] == closer {
			return i + 1, nil
		}
		if b[i] != ',' {
			return 0, errJSONSyntax
		}
		i = SkipSpace(b, i+1)
	}
}

// skipPlain returns the index of the first byte from b[i] on that needs a
// closer look in a string: a quote, a backslash or a control character.
// Strings are most of a tools/list answer, so it looks at eight bytes at a
// time: a word is passed over whole when none of its bytes is special.
func skipPlain(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, bs := x^(ones*'"'), x^(ones*'\\')
		// A byte's high bit in m is set where the byte is zero (in q or
		// bs) or below 0x20 (in x). Borrows can mark later bytes falsely,
		// never earlier ones, so the lowest mark is exact.
		m := ((q - ones) &^ q) | ((bs - ones) &^ bs) | ((x - ones*0x20) &^ x)
		if m &= highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(b) && plainByte[b[i]] {
		i++
	}
	return i
}

// plainByte marks the bytes a string may hold without a closer look.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// skipString returns the index just past the string whose quote is b[i].
func skipString(b []byte, i int) (int, error) {
	for i++; i < len(b); i++ {
		i = skipPlain(b, i)
		if i >= len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			i++
			if i >= len(b) {
				return 0, errJSONSyntax
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return 0, errJSONSyntax
				}
				for _, h := range b[i+1 : i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return 0, errJSONSyntax
					}
				}
				i += 4
			default:
				return 0, errJSONSyntax
			}
		case c < 0x20:
			return 0, errJSONSyntax
		}
	}
	return 0, errJSONSyntax
}

func skipLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, errJSONSyntax
	}
	return i + len(lit), nil
}

// skipNumber follows the JSON number grammar exactly.
func skipNumber(b []byte, i int) (int, error) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return 0, errJSONSyntax
	}
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return 0, errJSONSyntax
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return 0, errJSONSyntax
		}
	}
	return i, nil
}
