package bench

import (
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
)

// counts are the workers' counters summed.
type counts struct {
	kinds                [MaxKinds]int64
	examples             [MaxKinds]string
	sent, recv, poolWait int64
	stamped, unstamped   int64
}

// point merges the workers' records into one Point.
func (r *runner) point(end time.Time, cpu, runWait time.Duration) measure.Point {
	for _, s := range r.states {
		s.flush()
	}
	merged := NewHistogram()
	for _, sh := range r.shards {
		merged.Merge(sh.lat)
	}
	c := r.counts()
	elapsed := end.Sub(r.measureStart)
	if elapsed <= 0 {
		elapsed = time.Nanosecond
	}
	p := measure.Point{
		Concurrency:   r.p.concurrency,
		Total:         r.cfg.Total,
		Latency:       summarize(merged, &c.kinds, r.kinds),
		ElapsedS:      elapsed.Seconds(),
		BytesSent:     c.sent,
		BytesReceived: c.recv,
		Hist:          merged,
	}
	p.RPS = float64(p.Requests) / elapsed.Seconds()
	p.ErrorExamples = errorExamples(&c.examples, r.kinds)
	p.Histogram, _ = hist.Encode(merged)
	p.Client.CPUS = cpu.Seconds()
	p.Client.PoolWaits = c.poolWait
	notice := r.notices()
	p.Client.LatencyClock, p.Client.NoticeDelay = latencyClock(c.stamped, c.unstamped), measure.NewTiming(notice)
	r.judgeNotice(notice, merged)
	if r.p.open() && r.sessions == nil {
		r.openFigures(&p, end)
	}
	if r.scheduled > p.Requests {
		p.Unsent = r.scheduled - p.Requests
	}
	due := backlog{unit: "requests", started: p.Requests, due: r.scheduled, missed: p.Unsent}
	if r.sessions != nil {
		r.sessions.fill(&p, elapsed)
		due = r.sessions.backlog()
	}
	p.Client.Saturated, p.Client.SaturationReason = r.saturation(due, cpu, runWait, elapsed)
	if len(r.ops) > 1 || r.sessions != nil {
		p.ByOperation = r.byOperation(elapsed)
	}
	p.FirstEvent, p.TaskCreated = r.timings()
	p.Series = r.buildSeries(end)
	p.Stages, p.Spikes = SummarizeStages(r.cfg.Shape(), p.Series)
	return p
}

// timings summarises the requests' milestone times across shards.
func (r *runner) timings() (first, created *measure.Timing) {
	var fh, ch *hdrhistogram.Histogram
	for _, sh := range r.shards {
		fh, ch = mergeInto(fh, sh.first), mergeInto(ch, sh.created)
	}
	return measure.NewTiming(fh), measure.NewTiming(ch)
}

// mergeInto merges h into acc, making acc when h is the first to merge.
func mergeInto(acc, h *hdrhistogram.Histogram) *hdrhistogram.Histogram {
	if h == nil {
		return acc
	}
	if acc == nil {
		acc = NewHistogram()
	}
	acc.Merge(h)
	return acc
}

// countersSince is how much each of a Counting workload's counts grew
// since before; nil for other workloads or when nothing grew.
func countersSince(c Counting, before map[string]int64) map[string]int64 {
	if c == nil {
		return nil
	}
	var out map[string]int64
	for name, n := range c.Counters() {
		if d := n - before[name]; d > 0 {
			if out == nil {
				out = map[string]int64{}
			}
			out[name] = d
		}
	}
	return out
}

func (r *runner) counts() counts {
	var c counts
	for _, s := range r.states {
		for k := range c.kinds {
			c.kinds[k] += s.kinds[k]
			if c.examples[k] == "" {
				c.examples[k] = s.examples[k]
			}
		}
		c.sent += s.sent
		c.recv += s.recv
		c.poolWait += s.poolWait
		c.stamped += s.stamped
		c.unstamped += s.unstamped
	}
	return c
}

// openFigures adds an open loop's own figures to p: the offered and
// achieved rates, latency from the actual send, and the schedule's lag.
func (r *runner) openFigures(p *measure.Point, end time.Time) {
	// Achieved rate: answers per second between the first and the last
	// answer. Counting from the first send instead would charge one
	// latency to the rate and read a server that keeps up as behind.
	if span := end.Sub(r.firstDone()); p.Requests > 1 && span > 0 {
		p.RPS = float64(p.Requests-1) / span.Seconds()
	}
	rt := r.p.rate
	p.Rate = &rt
	p.OfferedRPS = rt
	p.Concurrency = len(r.workers)
	unc, lag, wake := NewHistogram(), NewHistogram(), NewHistogram()
	for _, sh := range r.shards {
		unc.Merge(sh.uncorrected)
		lag.Merge(sh.lag)
		wake.Merge(sh.wake)
	}
	p.Uncorrected, p.ScheduleLagMS = &measure.Uncorrected{}, &measure.ScheduleLag{}
	p.Uncorrected.Fill(unc)
	p.ScheduleLagMS.Fill(lag)
	r.judgeWake(wake)
}

// judgeWake keeps the p99 of how late the generator sent with a worker
// free, once there are enough sends for a p99 to mean something.
func (r *runner) judgeWake(wake *hdrhistogram.Histogram) {
	r.wakeP99 = 0
	if wake.TotalCount() >= minJudgeSends {
		r.wakeP99 = time.Duration(wake.ValueAtQuantile(99)) * time.Microsecond
	}
}

// byOperation is the figures of each operation of a mix.
func (r *runner) byOperation(elapsed time.Duration) []measure.OperationStats {
	out := make([]measure.OperationStats, len(r.ops))
	for i, op := range r.ops {
		h := NewHistogram()
		var k [MaxKinds]int64
		for _, sh := range r.shards {
			h.Merge(sh.ops[i])
		}
		for _, s := range r.states {
			for j := range k {
				k[j] += s.opKinds[i][j]
			}
		}
		out[i] = measure.OperationStats{Operation: op, Latency: summarize(h, &k, r.kinds)}
		out[i].RPS = float64(out[i].Requests) / elapsed.Seconds()
		if r.sessions != nil {
			// Steps keep their histograms, so merged reports are exact
			// per step.
			out[i].Histogram, _ = hist.Encode(h)
		}
	}
	return out
}

func summarize(h *hdrhistogram.Histogram, kinds *[MaxKinds]int64, names []string) measure.Latency {
	l := measure.Latency{ErrorsByKind: map[string]int64{}}
	for k, n := range kinds {
		l.Requests += n
		if Kind(k) == OK {
			l.OK += n
		} else if n > 0 {
			l.Errors += n
			l.ErrorsByKind[kindName(names, k)] = n
		}
	}
	if l.Requests > 0 {
		l.ErrorRate = float64(l.Errors) / float64(l.Requests)
	}
	l.FillPercentiles(h)
	return l
}

func errorExamples(ex *[MaxKinds]string, names []string) map[string]string {
	var m map[string]string
	for k, s := range ex {
		if s == "" {
			continue
		}
		if m == nil {
			m = map[string]string{}
		}
		m[kindName(names, k)] = s
	}
	return m
}

// kindName is outcome k's name, or a placeholder for a kind the workload
// did not name.
func kindName(names []string, k int) string {
	if k < len(names) {
		return names[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

func ms(us int64) float64 { return float64(us) / 1000 }
