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
	ClockMixed  = "mixed" // some of each: the Stage's Count says how many had stamps
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

// judgeNotice keeps the medians saturation compares: the generator's own
// delay in noticing answers against the latency the kernel saw.
func (r *runner) judgeNotice(notice *hdrhistogram.Histogram, lat *hdrhistogram.Histogram) {
	r.noticeP50, r.latP50 = 0, 0
	if notice != nil && notice.TotalCount() >= minJudgeSends {
		r.noticeP50 = time.Duration(notice.ValueAtQuantile(50)) * time.Microsecond
		r.latP50 = time.Duration(lat.ValueAtQuantile(50)) * time.Microsecond
	}
}

// noticeShare is how much of the time a worker spends per request goes
// to noticing answers late before the generator counts as saturated: a
// delay as large as the server's whole answer time halves what a closed
// loop asks of the server, and is the generator's doing, not the server's.
const noticeShare = 1.0

// noticeFloor keeps a fast server's quiet run from reading as saturated:
// waking a goroutine for an answer costs some tens of µs on any machine.
const noticeFloor = 200 * time.Microsecond

// lateNotice says why the generator's delay in noticing answers limited
// the point, "" when it did not.
func (r *runner) lateNotice() string {
	if r.noticeP50 < noticeFloor || float64(r.noticeP50) < noticeShare*float64(r.latP50) {
		return ""
	}
	return fmt.Sprintf("it noticed answers %.3f ms (median) after the kernel received them, against a median latency of %.3f ms",
		float64(r.noticeP50.Microseconds())/1000, float64(r.latP50.Microseconds())/1000)
}
