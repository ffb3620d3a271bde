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
	// The fields every request writes come first, together, and the
	// 4 KB buffer after them: at a few thousand requests a second the
	// kernel's work between two requests leaves them out of cache, and
	// spread over the struct they cost a miss a line (perf: record was
	// the generator's costliest function of its own against SSE answers).
	shard  *histShard
	series *seriesRec
	// mu guards buf, n and bucket: the series loop flushes a worker that
	// has kept a finished bucket's requests (one waiting on a slow answer).
	mu     sync.Mutex
	n      int
	bucket int // the series bucket the buffered requests were answered in
	sent   int64
	recv   int64
	// stamped and unstamped count the requests whose latency ended at a
	// kernel stamp and those that ended when the worker noticed.
	stamped, unstamped int64
	poolWait           int64
	firstDone          time.Time
	lastDone           time.Time
	kinds              [MaxKinds]int64
	// Read by the progress goroutine; the buckets' sum is the requests
	// recorded.
	errors   atomic.Int64
	buckets  [progressBuckets]atomic.Int64
	buf      [flushEvery]latencies
	opKinds  [][MaxKinds]int64
	examples [MaxKinds]string
	_        [64]byte // keep neighbours' counters off this cache line
}

// flushEvery is how many requests a worker buffers before taking its
// shard's lock.
const flushEvery = 64

// latencies are one request's figures in microseconds; the open-loop ones
// are 0 in a closed loop.
type latencies struct {
	lat, uncorrected, lag, wake int64
	first, created              int64 // timings of the request (Sample); 0 when it had none
	notice                      int64 // the generator's delay in noticing the answer, when stamped
	stamped                     bool  // the latency ended at the kernel's receive stamp
	op                          int32
	sentIn                      int32 // the series bucket it was sent in
	kind                        Kind
}

// histShard holds the histograms a group of workers flush into.
type histShard struct {
	mu                     sync.Mutex
	lat                    *hdrhistogram.Histogram // corrected (open loop) or plain latency
	uncorrected, lag, wake *hdrhistogram.Histogram // open loop only
	ops                    []*hdrhistogram.Histogram
	// timings: the first event and task creation, made when a request
	// first reaches one (most workloads never do).
	first, created *hdrhistogram.Histogram
	// notice: the generator's delay in noticing answers the kernel
	// stamped (stamp.go), made at the first stamp.
	notice *hdrhistogram.Histogram
}

func newHistShard(nOps int, open, perOp bool) *histShard {
	h := &histShard{lat: NewHistogram()}
	if open {
		h.uncorrected, h.lag, h.wake = NewHistogram(), NewHistogram(), NewHistogram()
	}
	if perOp {
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

func newWorkerState(shard *histShard, series *seriesRec, nOps int, perOp bool) *workerState {
	s := &workerState{shard: shard, series: series}
	if perOp {
		s.opKinds = make([][MaxKinds]int64, nOps)
	}
	return s
}

// record files one measured sample, sent at sent and answered at done;
// l.lat is its latency.
func (s *workerState) record(smp Sample, l latencies, sent, done time.Time) {
	l.lat = max(l.lat, 1)
	l.op = int32(smp.Op)
	l.first, l.created = smp.FirstEvent.Microseconds(), smp.Created.Microseconds()
	l.kind = smp.Kind
	l.sentIn = int32(s.series.index(sent))
	at := s.series.index(done)
	s.mu.Lock()
	if at != s.bucket && s.n > 0 {
		s.flushLocked()
	}
	s.bucket = at
	s.buf[s.n] = l
	s.n++
	if s.n == flushEvery {
		s.flushLocked()
	}
	s.mu.Unlock()
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
	if l.stamped {
		s.stamped++
	} else {
		s.unstamped++
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
}

// flush moves the buffered figures into the shard's histograms and the
// series.
func (s *workerState) flush() {
	s.mu.Lock()
	s.flushLocked()
	s.mu.Unlock()
}

// flushStale flushes the buffer if it holds requests answered in bucket
// upTo or before.
func (s *workerState) flushStale(upTo int) {
	s.mu.Lock()
	if s.n > 0 && s.bucket <= upTo {
		s.flushLocked()
	}
	s.mu.Unlock()
}

// flushLocked is flush with s.mu held.
func (s *workerState) flushLocked() {
	if s.n == 0 {
		return
	}
	s.series.add(s.bucket, s.buf[:s.n])
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
			h.recordTimings(l)
		}
		if l.stamped {
			if h.notice == nil {
				h.notice = NewHistogram()
			}
			_ = h.notice.RecordValue(max(l.notice, 1))
		}
	}
	h.mu.Unlock()
	s.n = 0
}

// recordTimings files a request's milestone times, making their histograms on
// first use.
func (h *histShard) recordTimings(l latencies) {
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
	if r.sessions != nil {
		// A session ends after its last step: its DELETE, a last pause.
		if e := r.sessions.lastEnd(); e.After(end) {
			end = e
		}
	}
	if end.IsZero() {
		end = time.Now()
	}
	return end
}
