package bench

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// workerState is what one worker records. Latencies gather in a small
// buffer the worker owns and go into its shard's histograms flushEvery
// requests at a time: no lock per request, and memory that does not grow
// with the number of workers the way a set of histograms per worker would
// (one HdrHistogram over 1 µs–1 h is about 190 KB).
type workerState struct {
	shard     *histShard
	buf       [flushEvery]latencies
	n         int
	opKinds   [][MaxKinds]int64
	kinds     [MaxKinds]int64
	examples  [MaxKinds]string
	sent      int64
	recv      int64
	poolWait  int64
	firstDone time.Time
	lastDone  time.Time
	// Read by the progress goroutine.
	done    atomic.Int64
	errors  atomic.Int64
	buckets [progressBuckets]atomic.Int64
	_       [64]byte // keep neighbours' counters off this cache line
}

// flushEvery is how many requests a worker buffers before taking its
// shard's lock.
const flushEvery = 64

// latencies are one request's figures in microseconds; the open-loop ones
// are 0 in a closed loop.
type latencies struct {
	lat, uncorrected, lag, wake int64
	first, created              int64 // stages of the request (Sample); 0 when it had none
	op                          int32
}

// histShard holds the histograms a group of workers flush into.
type histShard struct {
	mu                     sync.Mutex
	lat                    *hdrhistogram.Histogram // corrected (open loop) or plain latency
	uncorrected, lag, wake *hdrhistogram.Histogram // open loop only
	ops                    []*hdrhistogram.Histogram
	// stages: the first event and task creation, made when a request
	// first reaches one (most workloads never do).
	first, created *hdrhistogram.Histogram
}

func newHistShard(nOps int, open bool) *histShard {
	h := &histShard{lat: NewHistogram()}
	if open {
		h.uncorrected, h.lag, h.wake = NewHistogram(), NewHistogram(), NewHistogram()
	}
	if nOps > 1 {
		h.ops = make([]*hdrhistogram.Histogram, nOps)
		for i := range h.ops {
			h.ops[i] = NewHistogram()
		}
	}
	return h
}

// shardCount spreads workers over a few shards per core: enough that
// flushes rarely meet, few enough that the histograms stay small.
func shardCount(workers int) int {
	return max(1, min(workers, 4*runtime.GOMAXPROCS(0), 64))
}

func newWorkerState(shard *histShard, nOps int) *workerState {
	s := &workerState{shard: shard}
	if nOps > 1 {
		s.opKinds = make([][MaxKinds]int64, nOps)
	}
	return s
}

// record files one measured sample; l.lat is its latency.
func (s *workerState) record(smp Sample, l latencies, done time.Time) {
	l.lat = max(l.lat, 1)
	l.op = int32(smp.Op)
	l.first, l.created = smp.FirstEvent.Microseconds(), smp.Created.Microseconds()
	s.buf[s.n] = l
	s.n++
	if s.n == flushEvery {
		s.flush()
	}
	if s.opKinds != nil && smp.Op >= 0 && smp.Op < len(s.opKinds) {
		s.opKinds[smp.Op][smp.Kind]++
	}
	s.kinds[smp.Kind]++
	if smp.Kind != OK {
		s.errors.Add(1)
		if s.examples[smp.Kind] == "" && smp.Err != nil {
			s.examples[smp.Kind] = smp.Err.Error()
		}
	}
	if smp.ConnWait > PoolWaitThreshold {
		s.poolWait++
	}
	s.sent += smp.Sent
	s.recv += smp.Received
	if s.firstDone.IsZero() {
		s.firstDone = done
	}
	s.lastDone = done
	s.buckets[progressBucket(l.lat)].Add(1)
	s.done.Add(1)
}

// flush moves the buffered figures into the shard's histograms.
func (s *workerState) flush() {
	h := s.shard
	h.mu.Lock()
	for _, l := range s.buf[:s.n] {
		_ = h.lat.RecordValue(l.lat)
		if h.uncorrected != nil {
			_ = h.uncorrected.RecordValue(max(l.uncorrected, 1))
			_ = h.lag.RecordValue(max(l.lag, 1))
			_ = h.wake.RecordValue(max(l.wake, 1))
		}
		if h.ops != nil && l.op >= 0 && int(l.op) < len(h.ops) {
			_ = h.ops[l.op].RecordValue(l.lat)
		}
		if l.first > 0 || l.created > 0 {
			h.recordStages(l)
		}
	}
	h.mu.Unlock()
	s.n = 0
}

// recordStages files a request's stage times, making their histograms on
// first use.
func (h *histShard) recordStages(l latencies) {
	for _, st := range []struct {
		v int64
		h **hdrhistogram.Histogram
	}{{l.first, &h.first}, {l.created, &h.created}} {
		if st.v <= 0 {
			continue
		}
		if *st.h == nil {
			*st.h = NewHistogram()
		}
		_ = (*st.h).RecordValue(st.v)
	}
}

func (r *runner) firstDone() time.Time {
	var first time.Time
	for _, s := range r.states {
		if !s.firstDone.IsZero() && (first.IsZero() || s.firstDone.Before(first)) {
			first = s.firstDone
		}
	}
	return first
}

func (r *runner) lastDone() time.Time {
	var end time.Time
	for _, s := range r.states {
		if s.lastDone.After(end) {
			end = s.lastDone
		}
	}
	if end.IsZero() {
		end = time.Now()
	}
	return end
}
