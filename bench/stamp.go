package bench

import (
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Latency clocks, as a Point's Client.LatencyClock names them: whether
// latencies ended at the kernel's receive stamp of the answer or when the
// worker noticed it in user space (an engine or system without stamps).
const (
	ClockKernel = "kernel-receive"
	ClockUser   = "user-space"
	ClockMixed  = "mixed" // some of each: the NoticeDelay timing's Count says how many had stamps
)

// kernelEnd is the wire's interval of a request the worker began at
// sent and whose answer it noticed at noticed: from the driver's write
// (Sample.SentAt) to the kernel's receipt of the answer (Sample.Stamp,
// Unix ns on CLOCK_REALTIME), and the generator's own delay in noticing
// it. Without a stamp it is sent to noticed, as a user-space clock sees
// it. The stamp is compared with the wall reading of noticed, which
// time.Now took with its monotonic reading, so the delay is a difference
// of two CLOCK_REALTIME readings and is moved onto the monotonic clock
// whole. A step of the real-time clock between the two (or a stamp that
// is not this answer's) shows as a delay below zero or longer than the
// request; such a stamp is not used.
func kernelEnd(sent, noticed time.Time, smp Sample) (from, end time.Time, notice time.Duration, ok bool) {
	if smp.Stamp == 0 {
		return sent, noticed, 0, false
	}
	if smp.SentAt.After(sent) && smp.SentAt.Before(noticed) {
		sent = smp.SentAt
	}
	d := time.Duration(noticed.UnixNano() - smp.Stamp)
	if d < 0 || d > noticed.Sub(sent) {
		return sent, noticed, 0, false
	}
	return sent, noticed.Add(-d), d, true
}

// latencyClock names the clock that ended a point's latencies from how
// many had a kernel stamp and how many did not.
func latencyClock(stamped, unstamped int64) string {
	switch {
	case stamped == 0:
		return ClockUser
	case unstamped == 0:
		return ClockKernel
	}
	return ClockMixed
}

// notices merges the shards' notice delays.
func (r *runner) notices() *hdrhistogram.Histogram {
	var h *hdrhistogram.Histogram
	for _, sh := range r.shards {
		h = mergeInto(h, sh.notice)
	}
	return h
}

// judgeNotice keeps the figures saturation compares: the generator's own
// delay in noticing answers against the latency the kernel saw, at the
// median and at p99.
func (r *runner) judgeNotice(notice *hdrhistogram.Histogram, lat *hdrhistogram.Histogram) {
	r.noticeP50, r.latP50, r.noticeP99, r.latP99 = 0, 0, 0, 0
	if notice != nil && notice.TotalCount() >= minJudgeSends {
		us := func(h *hdrhistogram.Histogram, q float64) time.Duration {
			return time.Duration(h.ValueAtQuantile(q)) * time.Microsecond
		}
		r.noticeP50, r.latP50 = us(notice, 50), us(lat, 50)
		r.noticeP99, r.latP99 = us(notice, 99), us(lat, 99)
	}
}

// noticeShare is how much of the time a worker spends per request goes
// to noticing answers late before the generator counts as saturated: a
// delay as large as the server's whole answer time halves what a closed
// loop asks of the server, and is the generator's doing, not the server's.
const noticeShare = 1.0

// The floors keep a fast server's quiet run from reading as saturated:
// waking a goroutine for an answer costs some tens of µs on any machine,
// and its p99 a few hundred. A CPU hog beside the generator leaves the
// median much as it was (the scheduler favours a thread that slept) and
// moves the p99 past a millisecond (scripts/notice-delay.sh).
const (
	noticeFloor    = 200 * time.Microsecond
	noticeP99Floor = time.Millisecond
)

// lateNotice says why the generator's delay in noticing answers limited
// the point, "" when it did not.
func (r *runner) lateNotice() string {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	switch {
	case r.noticeP50 >= noticeFloor && float64(r.noticeP50) >= noticeShare*float64(r.latP50):
		return fmt.Sprintf("it noticed answers %.3f ms (median) after the kernel received them, against a median latency of %.3f ms",
			ms(r.noticeP50), ms(r.latP50))
	case r.noticeP99 >= noticeP99Floor && float64(r.noticeP99) >= noticeShare*float64(r.latP99):
		return fmt.Sprintf("it noticed answers %.3f ms (p99) after the kernel received them, against a p99 latency of %.3f ms",
			ms(r.noticeP99), ms(r.latP99))
	}
	return ""
}
