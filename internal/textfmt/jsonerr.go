package textfmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// JSONError puts an error of encoding/json in the words of the file or
// flag the user wrote: what was wanted and what was found, at which field
// or byte, without Go's own type names ("[]main.mixEntry").
func JSONError(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		s := fmt.Sprintf("want %s, got %s", jsonKind(te.Type), jsonValue(te.Value))
		if te.Field != "" {
			s = te.Field + ": " + s
		}
		return s
	case errors.As(err, &se):
		return fmt.Sprintf("not valid JSON at byte %d: %s", se.Offset, se.Error())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "not valid JSON: it ends too early"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonKind names what a Go type holds as JSON.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Name() == "RawMessage" {
			return "any JSON value"
		}
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	default:
		return "a number"
	}
}

// jsonValue names what encoding/json found: "object", "number 1e400".
func jsonValue(v string) string {
	switch {
	case v == "array":
		return "a list"
	case v == "object":
		return "an object"
	case v == "string" || v == "number":
		return "a " + v
	case v == "bool":
		return "true or false"
	case strings.HasPrefix(v, "number "):
		return strings.TrimPrefix(v, "number ") + ", out of range"
	}
	return v
}

// JSONErrorIn is JSONError for an error in the contents b of a file:
// where encoding/json says which byte, it says which line, as an editor
// shows it.
func JSONErrorIn(b []byte, err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("line %d: not valid JSON: %s", LineAt(b, se.Offset), se.Error())
	case errors.As(err, &te):
		return fmt.Sprintf("line %d: %s", LineAt(b, te.Offset), JSONError(err))
	}
	return JSONError(err)
}

// LineAt is the line (from 1) holding byte off of b.
func LineAt(b []byte, off int64) int {
	off = min(max(off, 0), int64(len(b)))
	return 1 + strings.Count(string(b[:off]), "\n")
}

// JSONListLines is the line on which each element of the JSON list b
// begins; nil when b is not a list.
func JSONListLines(b []byte) []int {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil
	}
	var lines []int
	for dec.More() {
		off := dec.InputOffset()
		for off < int64(len(b)) && strings.ContainsRune(" \t\r\n,", rune(b[off])) {
			off++ // the separator before the element
		}
		lines = append(lines, LineAt(b, off))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return lines
		}
	}
	return lines
}
