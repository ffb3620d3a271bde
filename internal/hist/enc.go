package hist

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"
	"math/bits"
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Encoder writes a series bucket's histogram in the form Encode
// gives (V2 compressed, base64), byte for byte, but keeps its buffers and
// its zlib writer from one bucket to the next. The library's encoder makes
// a new best-compression zlib writer and a small buffer per count each
// time, some 900 KB of garbage per histogram: once a second for hours,
// that keeps the collector's heap target, and so the generator's memory,
// at twice what it holds. Here a bucket costs its encoded string.
//
// It encodes only histograms of New's geometry, whose index
// arithmetic it repeats (the library keeps it unexported); a test holds
// its output to the library's, byte for byte.
type Encoder struct {
	sparse  *hdrhistogram.PackedHistogram // the bucket's populated bins, reused
	payload []byte
	inner   []byte
	zbuf    bytes.Buffer
	zw      *zlib.Writer
	raw     []byte
	b64     []byte
	b64b    []byte
}

// The V2 format's cookies, as the library writes them (word size 8).
const (
	v2Cookie           = 0x1c849303 | 0x10
	v2CompressedCookie = 0x1c849304 | 0x10
)

// Index arithmetic of New's geometry: unit resolution up to
// 2·10^digits, so 2^11 sub-buckets, half of them per bucket after the
// first; a lowest value of 1, so no unit shift.
const (
	subBucketHalfMagnitude = 10
	subBucketHalfCount     = 1 << subBucketHalfMagnitude
	subBucketMask          = 2*subBucketHalfCount - 1
)

// NewEncoder returns an encoder for histograms of New's geometry; one
// goroutine uses it at a time.
func NewEncoder() *Encoder {
	zw, _ := zlib.NewWriterLevel(nil, zlib.BestCompression) // the level is valid
	return &Encoder{sparse: hdrhistogram.NewPacked(minMicros, maxMicros, digits), zw: zw}
}

// flatIndex is the position of value v's bin in the counts array.
func flatIndex(v int64) int64 {
	bucket := int64(64-bits.LeadingZeros64(uint64(v|subBucketMask))) - (subBucketHalfMagnitude + 1)
	sub := v >> uint(bucket)
	return (bucket+1)<<subBucketHalfMagnitude + sub - subBucketHalfCount
}

// encoders keep encoders for Encode: a report encodes a
// few histograms at its end, and the library's encoder makes some 900 KB
// of garbage for each.
var encoders = sync.Pool{New: func() any { return NewEncoder() }}

// bucketGeometry says whether h has New's geometry, the one the
// encoder and the decoder (dec.go) handle themselves.
func bucketGeometry(h *hdrhistogram.Histogram) bool {
	return h.LowestTrackableValue() == minMicros && h.SignificantFigures() == digits && h.HighestTrackableValue() == maxMicros
}

// encode returns h in Encode's form.
func (e *Encoder) encode(h *hdrhistogram.Histogram) string {
	if !bucketGeometry(h) {
		s, _ := encodeWithLibrary(h)
		return s
	}
	return e.Text(e.Pack(h))
}

// Pack returns h, of New's geometry, in the V2 compressed form
// before its base64: what a series bucket keeps, about half the size of
// its text. The bytes are the encoder's until its next use.
func (e *Encoder) Pack(h *hdrhistogram.Histogram) []byte {
	e.sparse.Reset()
	e.sparse.MergeFrom(h)
	// Counts by bin in index order: a run of two or more empty bins as
	// minus its length, anything else as the count, ZigZag LEB128 (the
	// 9-byte variant, equal to Go's uvarint below 2^56).
	e.payload = e.payload[:0]
	next := int64(0)
	for v, n := range e.sparse.ForEachBucket {
		i := flatIndex(v)
		switch gap := i - next; {
		case gap == 1:
			e.payload = binary.AppendUvarint(e.payload, zigzag(0))
		case gap > 1:
			e.payload = binary.AppendUvarint(e.payload, zigzag(-gap))
		}
		e.payload = binary.AppendUvarint(e.payload, zigzag(n))
		next = i + 1
	}
	if next == 0 { // empty: the library writes the one bin of value 0
		e.payload = binary.AppendUvarint(e.payload, zigzag(0))
	}
	return e.compress(e.payload)
}

// compress puts a payload of counts into the V2 form: the header of the
// buckets' geometry, compressed.
func (e *Encoder) compress(payload []byte) []byte {
	e.inner = binary.BigEndian.AppendUint32(e.inner[:0], v2Cookie)
	e.inner = binary.BigEndian.AppendUint32(e.inner, uint32(len(payload)))
	e.inner = binary.BigEndian.AppendUint32(e.inner, 0) // normalizing index offset
	e.inner = binary.BigEndian.AppendUint32(e.inner, digits)
	e.inner = binary.BigEndian.AppendUint64(e.inner, minMicros)
	e.inner = binary.BigEndian.AppendUint64(e.inner, maxMicros)
	e.inner = binary.BigEndian.AppendUint64(e.inner, math.Float64bits(1)) // integer to double ratio
	e.inner = append(e.inner, payload...)

	e.zbuf.Reset()
	e.zw.Reset(&e.zbuf)
	_, _ = e.zw.Write(e.inner) // into memory: cannot fail
	_ = e.zw.Close()
	e.raw = binary.BigEndian.AppendUint32(e.raw[:0], v2CompressedCookie)
	e.raw = binary.BigEndian.AppendUint32(e.raw, uint32(e.zbuf.Len()))
	return append(e.raw, e.zbuf.Bytes()...)
}

// Text is packed bytes in Encode's form, one allocation: the
// library's Encode gives base64 already, and Encode encodes that
// again, so this does too, for one form in every report. Nothing packed
// is the empty string.
func (e *Encoder) Text(packed []byte) string {
	e.b64 = base64.StdEncoding.AppendEncode(e.b64[:0], packed)
	e.b64b = base64.StdEncoding.AppendEncode(e.b64b[:0], e.b64)
	return string(e.b64b)
}

func zigzag(v int64) uint64 { return uint64((v << 1) ^ (v >> 63)) }
