package hist

import (
	"encoding/base64"
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// TestHistEncoderMatchesLibrary holds the reusing encoder to the
// library's, byte for byte, over histograms of every shape a bucket can
// have: empty, one value, a narrow spread, a long tail up to the hour the
// histograms reach, counts past one byte's worth.
func TestHistEncoderMatchesLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	e := NewEncoder()
	shapes := []func() int64{
		func() int64 { return 1 },
		func() int64 { return 500 + rng.Int64N(20) },
		func() int64 { return 200 + int64(rng.ExpFloat64()*3000) },
		func() int64 { return 1 + rng.Int64N(maxMicros) },
		func() int64 { return int64(1 << rng.IntN(31)) },
	}
	for round := range 60 {
		h := New()
		n := []int{0, 1, 7, 1000, 70_000}[round%5]
		shape := shapes[round%len(shapes)]
		for range n {
			if err := h.RecordValue(shape()); err != nil {
				t.Fatal(err)
			}
		}
		if round%7 == 0 {
			_ = h.RecordValues(maxMicros, 1<<40) // a count that needs every byte
		}
		want, err := encodeWithLibrary(h)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := Encode(h); got != want {
			t.Fatalf("round %d (%d values): Encode differs from the library", round, h.TotalCount())
		}
		if got := e.encode(h); got != want {
			t.Fatalf("round %d (%d values): encodings differ\n got %s\nwant %s", round, h.TotalCount(), got, want)
		}
	}
}

// TestHistEncoderAllocations: once its buffers have grown, a bucket
// costs its string (the library's encoder makes thousands of objects).
func TestHistEncoderAllocations(t *testing.T) {
	h := New()
	rng := rand.New(rand.NewPCG(1, 1))
	for range 25_000 {
		_ = h.RecordValue(200 + int64(rng.ExpFloat64()*3000))
	}
	e := NewEncoder()
	e.encode(h) // the buffers grow once
	if n := testing.AllocsPerRun(20, func() { e.encode(h) }); n > 2 {
		t.Errorf("%.0f allocations per encoding", n)
	}
}

// TestMergeEncoded: merging an encoded bucket gives what decoding it and
// merging the dense histogram gives, for every shape above, into a
// histogram that already holds values; a bad string is an error.
func TestMergeEncoded(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 20 {
		src, base := New(), New()
		for range []int{0, 1, 1000, 50_000}[round%4] {
			_ = src.RecordValue(1 + int64(rng.ExpFloat64()*float64(int64(1)<<rng.IntN(30))))
		}
		for range 100 {
			_ = base.RecordValue(100 + rng.Int64N(5000))
		}
		if round%7 == 0 {
			_ = src.RecordValues(maxMicros, 1<<40) // a count that needs every byte
		}
		enc, err := Encode(src)
		if err != nil {
			t.Fatal(err)
		}
		want := base.Clone()
		dense, err := Decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		want.Merge(dense)
		got := base.Clone()
		if err := MergeEncoded(got, enc); err != nil {
			t.Fatal(err)
		}
		if !got.Equals(want) || got.TotalCount() != base.TotalCount()+src.TotalCount() {
			t.Fatalf("round %d: merged %d values, want %d (p99 %d, want %d)", round, got.TotalCount(), want.TotalCount(), got.ValueAtQuantile(99), want.ValueAtQuantile(99))
		}
	}
	good, _ := Encode(New())
	raw, _ := base64.StdEncoding.DecodeString(good)
	cut := base64.StdEncoding.EncodeToString(raw[:len(raw)-6]) // inside the compressed counts
	for _, bad := range []string{"not base64!", "AAAA", base64.StdEncoding.EncodeToString([]byte("HISTFAAAAAAAxyz")), cut} {
		if err := MergeEncoded(New(), bad); err == nil {
			t.Errorf("%q merged without an error", bad)
		}
	}
	// Counts first, then a run past the last bin: refused whole, the
	// counts before it not added.
	broken := binary.AppendUvarint(binary.AppendUvarint(nil, zigzag(7)), zigzag(-countsLen))
	dst := New()
	_ = dst.RecordValue(1000)
	e := NewEncoder()
	if err := MergeEncoded(dst, e.Text(e.compress(broken))); err == nil || dst.TotalCount() != 1 {
		t.Errorf("a payload broken after its first count: error %v, %d values in the target, want an error and 1", err, dst.TotalCount())
	}
	if n := int64(len(New().Export().Counts)); n != countsLen {
		t.Errorf("countsLen %d, the library's %d", countsLen, n)
	}
	wide := hdrhistogram.New(1, 100*maxMicros, digits)
	_ = wide.RecordValue(50 * maxMicros)
	enc, _ := Encode(wide)
	if err := MergeEncoded(New(), enc); err == nil {
		t.Error("a value past the hour merged without an error")
	}
}

// TestMergeEncodedMemory: a merge allocates a small fraction of what the
// library's decoder makes, which is what kept a long run's report
// from raising the generator's peak memory.
func TestMergeEncodedMemory(t *testing.T) {
	h := New()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 25_000 {
		_ = h.RecordValue(200 + int64(rng.ExpFloat64()*3000))
	}
	enc, _ := Encode(h)
	perMerge := func(merge func(dst *hdrhistogram.Histogram)) uint64 {
		dst := New()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 50 {
			merge(dst)
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / 50
	}
	inPlace := perMerge(func(dst *hdrhistogram.Histogram) { _ = MergeEncoded(dst, enc) })
	dense := perMerge(func(dst *hdrhistogram.Histogram) {
		d, _ := Decode(enc)
		dst.Merge(d)
	})
	t.Logf("bytes allocated per merge: %d in place, %d decoded", inPlace, dense)
	if inPlace*20 > dense {
		t.Errorf("a merge allocates %d bytes, decoding and merging %d: want under a twentieth", inPlace, dense)
	}
}

// FuzzMergeEncoded: any payload of counts, put in the V2 form, merges or
// fails without a panic, and where the library's decoder reads it and its
// counts fit, the merge gives the same histogram.
func FuzzMergeEncoded(f *testing.F) {
	f.Add([]byte{0})
	f.Add(binary.AppendUvarint(binary.AppendUvarint(nil, zigzag(-1500)), zigzag(3)))
	f.Add(binary.AppendUvarint(binary.AppendUvarint(nil, zigzag(-countsLen+1)), zigzag(1<<40)))
	e := NewEncoder()
	f.Fuzz(func(t *testing.T, payload []byte) {
		s := e.Text(e.compress(payload))
		got := New()
		err := MergeEncoded(got, s)
		lib, libErr := Decode(s)
		if libErr != nil {
			return
		}
		want := New()
		if want.Merge(lib) > 0 {
			return
		}
		if err != nil {
			t.Fatalf("the library reads payload %x, MergeEncoded: %v", payload, err)
		}
		if !got.Equals(want) {
			t.Fatalf("payload %x: merged %d values, the library %d", payload, got.TotalCount(), want.TotalCount())
		}
	})
}
