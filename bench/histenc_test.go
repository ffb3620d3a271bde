package bench

import (
	"math/rand/v2"
	"testing"
)

// TestHistEncoderMatchesLibrary holds the reusing encoder to the
// library's, byte for byte, over histograms of every shape a bucket can
// have: empty, one value, a narrow spread, a long tail up to the hour the
// histograms reach, counts past one byte's worth.
func TestHistEncoderMatchesLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	e := newHistEncoder()
	shapes := []func() int64{
		func() int64 { return 1 },
		func() int64 { return 500 + rng.Int64N(20) },
		func() int64 { return 200 + int64(rng.ExpFloat64()*3000) },
		func() int64 { return 1 + rng.Int64N(histMaxMicros) },
		func() int64 { return int64(1 << rng.IntN(31)) },
	}
	for round := range 60 {
		h := NewHistogram()
		n := []int{0, 1, 7, 1000, 70_000}[round%5]
		shape := shapes[round%len(shapes)]
		for range n {
			if err := h.RecordValue(shape()); err != nil {
				t.Fatal(err)
			}
		}
		if round%7 == 0 {
			_ = h.RecordValues(histMaxMicros, 1<<40) // a count that needs every byte
		}
		want, err := EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.encode(h); got != want {
			t.Fatalf("round %d (%d values): encodings differ\n got %s\nwant %s", round, h.TotalCount(), got, want)
		}
	}
}

// TestHistEncoderAllocations: once its buffers have grown, a bucket
// costs its string (the library's encoder makes thousands of objects).
func TestHistEncoderAllocations(t *testing.T) {
	h := NewHistogram()
	rng := rand.New(rand.NewPCG(1, 1))
	for range 25_000 {
		_ = h.RecordValue(200 + int64(rng.ExpFloat64()*3000))
	}
	e := newHistEncoder()
	e.encode(h) // the buffers grow once
	if n := testing.AllocsPerRun(20, func() { e.encode(h) }); n > 2 {
		t.Errorf("%.0f allocations per encoding", n)
	}
}
