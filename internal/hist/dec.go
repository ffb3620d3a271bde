package hist

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// MergeEncoded adds the histogram encoded in s (Encode's form)
// into dst; a string it cannot read adds nothing. A report merges every bucket of a series, and the library's
// decoders make a histogram each time: a dense one of 190 KB, or a sparse
// one grown bin by bin to some 150 KB of garbage. A ten-minute soak's 600
// buckets made about 100 MB of it at the end of the run, which set the
// generator's peak memory. Here the counts go from the payload straight
// into dst, and the buffers and the zlib reader are kept for the next
// bucket. A histogram of another geometry than New's goes
// through the library.
func MergeEncoded(dst *hdrhistogram.Histogram, s string) error {
	d := decoders.Get().(*decoder)
	defer decoders.Put(d)
	err := d.merge(dst, s)
	if errors.Is(err, errOtherGeometry) {
		var h *hdrhistogram.Histogram
		if h, err = Decode(s); err == nil && dst.Merge(h) > 0 {
			err = errOutOfRange
		}
	}
	return err
}

// MergePacked adds a series bucket's packed histogram to dst: one of ours,
// so of the bucket geometry.
func MergePacked(dst *hdrhistogram.Histogram, packed []byte) error {
	d := decoders.Get().(*decoder)
	defer decoders.Put(d)
	return d.mergePacked(dst, packed)
}

var (
	errOtherGeometry = errors.New("histogram: not the bucket geometry")
	errOutOfRange    = errors.New("histogram: values out of the range merged into")
	errBadPayload    = errors.New("histogram: a broken count")
)

var decoders = sync.Pool{New: func() any { return new(decoder) }}

// decoder is Encoder's counterpart: buffers kept from one bucket
// to the next.
type decoder struct {
	text, raw []byte // the two base64 layers, decoded
	src       bytes.Reader
	zr        io.ReadCloser
	limit     io.LimitedReader
	inner     bytes.Buffer
}

// innerHeader is the length of the decompressed header: cookie, payload
// length, normalizing offset, digits (4 bytes each), lowest, highest and
// the conversion ratio (8 each).
const innerHeader = 40

func (d *decoder) merge(dst *hdrhistogram.Histogram, s string) (err error) {
	if d.text, err = base64.StdEncoding.AppendDecode(d.text[:0], []byte(s)); err != nil {
		return fmt.Errorf("histogram: %w", err)
	}
	if d.raw, err = base64.StdEncoding.AppendDecode(d.raw[:0], d.text); err != nil {
		return fmt.Errorf("histogram: %w", err)
	}
	return d.mergePacked(dst, d.raw)
}

// mergePacked adds the counts of raw, a histogram in the form before its
// base64 (Encoder.Pack's), to dst.
func (d *decoder) mergePacked(dst *hdrhistogram.Histogram, raw []byte) error {
	if len(raw) < 8 || binary.BigEndian.Uint32(raw) != v2CompressedCookie {
		return errOtherGeometry // or not V2: the library says which
	}
	n := int(binary.BigEndian.Uint32(raw[4:]))
	if n > len(raw)-8 {
		return fmt.Errorf("histogram: %d compressed bytes announced, %d there", n, len(raw)-8)
	}
	if err := d.inflate(raw[8 : 8+n]); err != nil {
		return fmt.Errorf("histogram: %w", err)
	}
	in := d.inner.Bytes()
	if len(in) < innerHeader || binary.BigEndian.Uint32(in) != v2Cookie ||
		binary.BigEndian.Uint32(in[12:]) != digits ||
		binary.BigEndian.Uint64(in[16:]) != minMicros || binary.BigEndian.Uint64(in[24:]) != maxMicros {
		return errOtherGeometry
	}
	payload := in[innerHeader:]
	if int(binary.BigEndian.Uint32(in[4:])) != len(payload) {
		return fmt.Errorf("histogram: payload of %d bytes, %d announced", len(payload), binary.BigEndian.Uint32(in[4:]))
	}
	return addCounts(dst, payload)
}

// inflate decompresses z into d.inner, bounded by the largest payload a
// histogram of this geometry can have (9 bytes a bin).
func (d *decoder) inflate(z []byte) error {
	d.src.Reset(z)
	var err error
	if d.zr == nil {
		d.zr, err = zlib.NewReader(&d.src)
	} else {
		err = d.zr.(zlib.Resetter).Reset(&d.src, nil)
	}
	if err != nil {
		return err
	}
	d.inner.Reset()
	d.limit = io.LimitedReader{R: d.zr, N: innerHeader + 9*countsLen}
	_, err = d.inner.ReadFrom(&d.limit)
	return err
}

// countsLen is the number of bins of the geometry as the library sizes
// it: buckets of 2^11 sub-buckets, doubling until one reaches past
// maxMicros, half of each after the first counted.
var countsLen = func() int64 {
	b := int64(1)
	for int64(2*subBucketHalfCount)<<(b-1) <= maxMicros {
		b++
	}
	return (b + 1) * subBucketHalfCount
}()

// addCounts reads the payload's ZigZag LEB128 counts (a negative one is
// a run of empty bins) and records each bin's count at its value. The
// payload is read through once before anything is recorded, so a broken
// one (one that runs past the last bin, as the library says) leaves dst
// as it was.
func addCounts(dst *hdrhistogram.Histogram, payload []byte) error {
	if err := eachCount(payload, nil); err != nil {
		return err
	}
	dropped := false
	_ = eachCount(payload, func(index, c int64) {
		if dst.RecordValues(valueAtIndex(index), c) != nil {
			dropped = true
		}
	})
	if dropped {
		return errOutOfRange
	}
	return nil
}

// eachCount calls fn (when not nil) with each bin's index and count
// above zero, and says whether the payload is whole.
func eachCount(payload []byte, fn func(index, c int64)) error {
	index := int64(0)
	for len(payload) > 0 {
		u, n := leb128(payload)
		if n == 0 {
			return errBadPayload
		}
		payload = payload[n:]
		c := int64(u>>1) ^ -int64(u&1)
		if c < 0 {
			if c < -countsLen || index-c > countsLen {
				return errBadPayload
			}
			index -= c
			continue
		}
		if index >= countsLen {
			return errBadPayload
		}
		if c > 0 && fn != nil {
			fn(index, c)
		}
		index++
	}
	return nil
}

// leb128 reads the format's varint: 7 bits a byte for eight bytes, all
// eight bits of a ninth. n is 0 when b ends inside it.
func leb128(b []byte) (v uint64, n int) {
	for i := range min(len(b), 9) {
		if i == 8 {
			return v | uint64(b[i])<<56, 9
		}
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// valueAtIndex is the lowest value of the bin at flat index i, the
// inverse of flatIndex.
func valueAtIndex(i int64) int64 {
	bucket := i>>subBucketHalfMagnitude - 1
	sub := i&(subBucketHalfCount-1) + subBucketHalfCount
	if bucket < 0 {
		bucket, sub = 0, sub-subBucketHalfCount
	}
	return sub << bucket
}
