package bench

import (
	"strings"
	"testing"
	"time"
)

// TestKernelEnd: a stamp moves the end of the interval back by the
// generator's delay in noticing, and the write time moves its start;
// a stamp that a clock step (or another answer) made impossible is not
// used, and without one the user-space interval stands.
func TestKernelEnd(t *testing.T) {
	sent := time.Now()
	noticed := sent.Add(500 * time.Microsecond)
	wall := noticed.UnixNano()
	wrote := sent.Add(20 * time.Microsecond)
	for _, tt := range []struct {
		name        string
		smp         Sample
		from, end   time.Time
		notice      time.Duration
		wantStamped bool
	}{
		{"no stamp", Sample{}, sent, noticed, 0, false},
		{"stamped", Sample{Stamp: wall - 100_000}, sent, noticed.Add(-100 * time.Microsecond), 100 * time.Microsecond, true},
		{"stamped, with the write", Sample{Stamp: wall - 100_000, SentAt: wrote}, wrote, noticed.Add(-100 * time.Microsecond), 100 * time.Microsecond, true},
		{"a stamp after the noticing (the clock stepped back)", Sample{Stamp: wall + 1000}, sent, noticed, 0, false},
		{"a stamp before the request (the clock stepped on)", Sample{Stamp: wall - int64(time.Second)}, sent, noticed, 0, false},
	} {
		from, end, notice, ok := kernelEnd(sent, noticed, tt.smp)
		if !from.Equal(tt.from) || !end.Equal(tt.end) || notice != tt.notice || ok != tt.wantStamped {
			t.Errorf("%s: from %v end %v notice %v stamped %v; want %v %v %v %v", tt.name,
				from.Sub(sent), end.Sub(sent), notice, ok, tt.from.Sub(sent), tt.end.Sub(sent), tt.notice, tt.wantStamped)
		}
	}
}

// TestSaturationByNoticeDelay: a generator that notices answers later
// than the server takes to give them is saturated, said with the
// figures; a fast server's few tens of µs of noticing is not.
func TestSaturationByNoticeDelay(t *testing.T) {
	r := &runner{cfg: Config{Model: ClosedLoop{Concurrency: 8}}}
	// The slowest 2% of the answers are noticed (and take) the tail's.
	judgeTail := func(noticeUS, latUS, tailNoticeUS, tailLatUS int64) (bool, string) {
		n, l := NewHistogram(), NewHistogram()
		for i := range minJudgeSends {
			if i < minJudgeSends*98/100 {
				_ = n.RecordValue(noticeUS)
				_ = l.RecordValue(latUS)
			} else {
				_ = n.RecordValue(tailNoticeUS)
				_ = l.RecordValue(tailLatUS)
			}
		}
		r.judgeNotice(n, l)
		return r.saturation(backlog{}, 0, 0, 2*time.Second)
	}
	judge := func(noticeUS, latUS int64) (bool, string) { return judgeTail(noticeUS, latUS, noticeUS, latUS) }
	if got, why := judge(30, 20); got {
		t.Errorf("30 µs of noticing against 20 µs of latency: saturated (%s)", why)
	}
	if got, why := judge(300, 1000); got {
		t.Errorf("0.3 ms of noticing against 1 ms of latency: saturated (%s)", why)
	}
	got, why := judge(3000, 1000)
	if !got || !strings.Contains(why, "3.00") || !strings.Contains(why, "1.000 ms") {
		t.Errorf("3 ms of noticing against 1 ms of latency: saturated %v (%s)", got, why)
	}
	// A hogged core: the median as quiet, the p99 past a millisecond and
	// past the latency's.
	got, why = judgeTail(20, 30, 6000, 1700)
	if !got || !strings.Contains(why, "(p99)") {
		t.Errorf("p99 of 6 ms noticing against 1.7 ms latency: saturated %v (%s)", got, why)
	}
	if got, why := judgeTail(20, 30, 700, 600); got {
		t.Errorf("p99 of 0.7 ms noticing: saturated (%s)", why)
	}
	if latencyClock(5, 0) != ClockKernel || latencyClock(0, 5) != ClockUser || latencyClock(5, 1) != ClockMixed {
		t.Error("latency clock names")
	}
}
