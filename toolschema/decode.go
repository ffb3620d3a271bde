package toolschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// maxDecodeDepth matches encoding/json's nesting limit.
const maxDecodeDepth = 10000

// fastDecode parses JSON into the tree the validator wants (map[string]any,
// []any, json.Number, string, bool, nil) with one pass over the bytes and
// no reflection. It exists for the output-validation hot path, where
// encoding/json's Decoder cost a third of the time; strings with escapes
// or non-ASCII bytes are handed to encoding/json so that the result is
// identical (FuzzDecode checks this).
func fastDecode(b []byte) (any, error) { return fastDecodeInterned(b, nil) }

// fastDecodeInterned is fastDecode with a table of strings known in advance
// (an outputSchema's member names and enum strings): those are shared
// instead of allocated per response. The table is only read.
func fastDecodeInterned(b []byte, intern map[string]any) (any, error) {
	d := decoder{b: b, intern: intern}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.i != len(d.b) {
		return nil, fmt.Errorf("invalid character %q after top-level value", d.b[d.i])
	}
	return v, nil
}

type decoder struct {
	b      []byte
	i      int
	intern map[string]any
}

var errEOF = errors.New("unexpected end of JSON input")

func (d *decoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	if depth > maxDecodeDepth {
		return nil, errors.New("JSON nested too deeply")
	}
	d.space()
	if d.i >= len(d.b) {
		return nil, errEOF
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		if v, ok := d.internedString(); ok {
			return v, nil
		}
		return d.str()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	default:
		for _, lit := range []struct {
			text string
			v    any
		}{{"true", true}, {"false", false}, {"null", nil}} {
			if len(d.b)-d.i >= len(lit.text) && string(d.b[d.i:d.i+len(lit.text)]) == lit.text {
				d.i += len(lit.text)
				return lit.v, nil
			}
		}
		return nil, fmt.Errorf("invalid character %q at offset %d", c, d.i)
	}
}

func (d *decoder) object(depth int) (any, error) {
	d.i++ // {
	m := map[string]any{}
	var err error
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, nil
	}
	for {
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, fmt.Errorf("expected a member name at offset %d", d.i)
		}
		var k string
		if v, ok := d.internedString(); ok {
			k = v.(string)
		} else if k, err = d.str(); err != nil {
			return nil, err
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, fmt.Errorf("expected ':' at offset %d", d.i)
		}
		d.i++
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k] = v
		d.space()
		if d.i >= len(d.b) {
			return nil, errEOF
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, nil
		default:
			return nil, fmt.Errorf("expected ',' or '}' at offset %d", d.i)
		}
	}
}

func (d *decoder) array(depth int) (any, error) {
	d.i++ // [
	a := []any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, nil
	}
	for {
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.b) {
			return nil, errEOF
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, nil
		default:
			return nil, fmt.Errorf("expected ',' or ']' at offset %d", d.i)
		}
	}
}

// internedString returns the shared copy of a plain string (no escapes) at
// the cursor when the table holds it.
func (d *decoder) internedString() (any, bool) {
	if d.intern == nil {
		return nil, false
	}
	j := d.i + 1
	for j < len(d.b) && d.b[j] != '"' && d.b[j] != '\\' && d.b[j] >= 0x20 && d.b[j] < utf8.RuneSelf {
		j++
	}
	if j >= len(d.b) || d.b[j] != '"' {
		return nil, false
	}
	v, ok := d.intern[string(d.b[d.i+1:j])]
	if ok {
		d.i = j + 1
	}
	return v, ok
}

func (d *decoder) str() (string, error) {
	start := d.i
	d.i++ // opening quote
	simple := true
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			if simple {
				return string(d.b[start+1 : d.i-1]), nil
			}
			var s string
			if err := json.Unmarshal(d.b[start:d.i], &s); err != nil {
				return "", err
			}
			return s, nil
		case c == '\\':
			simple = false
			d.i += 2
			continue
		case c < 0x20:
			return "", fmt.Errorf("control character in string at offset %d", d.i)
		case c >= utf8.RuneSelf:
			simple = false
		}
		d.i++
	}
	return "", errEOF
}

// number checks the JSON number grammar and keeps the text exactly.
func (d *decoder) number() (any, error) {
	start := d.i
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.b[d.i] == '-' {
		d.i++
	}
	if d.i < len(d.b) && d.b[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		return nil, fmt.Errorf("invalid number at offset %d", start)
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, fmt.Errorf("invalid number at offset %d", start)
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, fmt.Errorf("invalid number at offset %d", start)
		}
	}
	return json.Number(d.b[start:d.i]), nil
}
