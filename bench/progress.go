package bench

import (
	"math"
	"math/bits"
	"time"
)

// Progress reading uses coarse log-scale buckets each worker bumps with one
// atomic add, so the hot loop stays lock-free. Eight buckets per doubling
// gives a p99 within about 9%.
const (
	progressBuckets  = 256
	bucketsPerOctave = 8
)

// eighths are 2^(63+j/8) for j = 0..7: where each eighth of an octave
// starts, for a value shifted so that its top bit is bit 63.
var eighths = func() (t [bucketsPerOctave]uint64) {
	for j := range t {
		t[j] = uint64(math.Exp2(63 + float64(j)/bucketsPerOctave))
	}
	return t
}()

// progressBucket is floor(8·log2(us)), found with integers: the octave
// from the bit length, the eighth within it from the thresholds. A float
// logarithm a request was the costliest step of recording one.
func progressBucket(us int64) int {
	if us < 1 {
		us = 1
	}
	octave := bits.Len64(uint64(us)) - 1
	top := uint64(us) << (63 - octave)
	eighth := 0
	for eighth+1 < bucketsPerOctave && top >= eighths[eighth+1] {
		eighth++
	}
	return min(octave*bucketsPerOctave+eighth, progressBuckets-1)
}

func bucketUpperMS(b int) float64 {
	return math.Exp2(float64(b+1)/bucketsPerOctave) / 1000
}

// startProgress hands a snapshot to a ProgressObserver about once a
// ProgressEvery until the returned stop is called; an Observer that is
// not one costs no snapshots.
func (r *runner) startProgress() (stop func()) {
	po, ok := r.cfg.Observer.(ProgressObserver)
	if !ok {
		return func() {}
	}
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(r.cfg.ProgressEvery)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				po.Progress(r.snapshot())
			}
		}
	}()
	return func() { close(quit); <-finished }
}

func (r *runner) snapshot() Progress {
	var p Progress
	var counts [progressBuckets]int64
	for _, s := range r.states {
		p.Errors += s.errors.Load()
		for i := range counts {
			c := s.buckets[i].Load()
			counts[i] += c
			p.Done += c // every request recorded lands in one bucket
		}
	}
	p.Total = r.cfg.Total
	p.Elapsed = time.Since(r.start)
	if p.Elapsed > 0 {
		p.RPS = float64(p.Done) / p.Elapsed.Seconds()
	}
	p.Remaining = -1
	done, perSecond := p.Done, p.RPS
	if r.sessions != nil {
		p.Sessions = r.sessions.completed()
		done, perSecond = p.Sessions, float64(p.Sessions)/p.Elapsed.Seconds()
	}
	switch {
	case r.p.duration > 0:
		p.Remaining = max(r.p.duration-p.Elapsed, 0)
	case r.cfg.Total > 0 && perSecond > 0:
		p.Remaining = time.Duration(float64(r.cfg.Total-done) / perSecond * float64(time.Second))
	}
	if p.Done > 0 {
		rank := int64(math.Ceil(float64(p.Done) * 0.99))
		var seen int64
		for i, c := range counts {
			seen += c
			if seen >= rank {
				p.P99MS = bucketUpperMS(i)
				break
			}
		}
	}
	return p
}
