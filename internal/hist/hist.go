// Package hist is the latency histogram every report carries: its geometry
// (microseconds, 1 µs to one hour, 3 significant digits) and its text form
// in a report (the compressed HdrHistogram V2 form in base64), with an
// encoder and a decoder that keep their buffers. The generator records
// into these histograms; results merges them and report draws them, so
// the codec sits below all three and knows none of them.
package hist

import (
	"encoding/base64"
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histograms record microseconds from 1 µs to one hour at 3 significant
// digits: the precision wrk2 and fortio use, small enough to keep one per
// worker.
const (
	minMicros = 1
	maxMicros = 3_600_000_000
	digits    = 3
)

// New returns an empty latency histogram in microseconds.
func New() *hdrhistogram.Histogram {
	return hdrhistogram.New(minMicros, maxMicros, digits)
}

// Encode is the base64 text of the compressed HdrHistogram V2 form, which
// merge decodes without loss. Histograms of New's geometry go through a
// kept encoder (enc.go), the others through the library.
func Encode(h *hdrhistogram.Histogram) (string, error) {
	if !bucketGeometry(h) {
		return encodeWithLibrary(h)
	}
	e := encoders.Get().(*Encoder)
	defer encoders.Put(e)
	return e.encode(h), nil
}

// encodeWithLibrary is Encode by the library's encoder.
func encodeWithLibrary(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// Decode reverses Encode.
func Decode(s string) (*hdrhistogram.Histogram, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	h, err := hdrhistogram.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	return h, nil
}
