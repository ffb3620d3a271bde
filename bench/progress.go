package bench

import (
	"math"
	"time"
)

// Progress reading uses coarse log-scale buckets each worker bumps with one
// atomic add, so the hot loop stays lock-free. Eight buckets per doubling
// gives a p99 within about 9%.
const (
	progressBuckets  = 256
	bucketsPerOctave = 8
)

func progressBucket(us int64) int {
	if us < 1 {
		us = 1
	}
	b := int(math.Log2(float64(us)) * bucketsPerOctave)
	return min(b, progressBuckets-1)
}

func bucketUpperMS(b int) float64 {
	return math.Exp2(float64(b+1)/bucketsPerOctave) / 1000
}

// startProgress calls cfg.Progress about once a ProgressEvery until the
// returned stop is called.
func (r *runner) startProgress() (stop func()) {
	if r.cfg.Progress == nil {
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
				r.cfg.Progress(r.snapshot())
			}
		}
	}()
	return func() { close(quit); <-finished }
}

func (r *runner) snapshot() Progress {
	var p Progress
	var counts [progressBuckets]int64
	for _, s := range r.states {
		p.Done += s.done.Load()
		p.Errors += s.errors.Load()
		for i := range counts {
			counts[i] += s.buckets[i].Load()
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
	case r.cfg.Duration > 0:
		p.Remaining = max(r.cfg.Duration-p.Elapsed, 0)
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
