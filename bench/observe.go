package bench

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
)

// The generator reports what a level does as it runs through one
// Observer (Config.Observer): the measured window opening, each settled
// bucket of the series, and the end of the load. It calls the Observer
// from its own goroutines, never from a worker, so an observer costs the
// hot path nothing; but the series loop waits for Interval to return, and
// while it waits no bucket is compacted: an observer with slow work (a
// network exporter) hands it to a goroutine of its own.

// Observer receives a level's moments and intervals.
type Observer interface {
	// Measuring is called as the measured window opens (after the
	// warm-up), from the goroutine that called Run, before the clock
	// starts: e.g. to snapshot counters kept outside the generator.
	Measuring()
	// Interval receives each bucket shortly after it ends (SettleGrace,
	// or once the server's gauges of its end are read), in order, from
	// the series loop's goroutine; the last ones come as the level ends.
	Interval(Interval)
	// LoadDone is called when the load has ended, before the workers
	// close (e.g. to profile what they hold), from Run's goroutine.
	LoadDone()
}

// ProgressObserver is an Observer that also wants a running snapshot
// about once a Config.ProgressEvery, for a progress line. The generator
// takes snapshots only for one.
type ProgressObserver interface {
	Observer
	// Progress is called from a goroutine of its own.
	Progress(Progress)
}

// LateObserver is an Observer that also wants the answers filed in a
// bucket after it was handed over (a worker stamped them in it but
// reached the series later): each batch comes as an Interval of those
// answers alone (Index, times, Counts, ByOperation, Requests, Errors and
// the histogram; no percentiles, Sent or CPU), after that bucket's
// Interval and before the next settled one, from the same goroutine.
// With them an observer's buckets add up to the point exactly; the
// generator keeps them apart only for a LateObserver.
type LateObserver interface {
	Observer
	Late(Interval)
}

// NopObserver does nothing; embed it to implement only some of Observer.
type NopObserver struct{}

func (NopObserver) Measuring()        {}
func (NopObserver) Interval(Interval) {}
func (NopObserver) LoadDone()         {}

// Interval is one settled bucket of a running level, as the report's
// series will have it, but for a request whose answer is filed after the
// bucket was handed over (rare; a LateObserver gets those as they come,
// the report has them in its bucket).
type Interval struct {
	Index int
	// Start is when the bucket began; End is its end from the start of
	// measuring, and Length the interval (the last bucket may be cut
	// short by the end of the run).
	Start  time.Time
	End    time.Duration
	Length time.Duration
	// Requests are the answers in the bucket; Errors those not OK. Sent
	// counts the measured requests sent in it whose answers are filed:
	// one still unanswered (or answered in the bucket after, by a worker
	// that has not flushed it yet) counts in the report's column only.
	Requests, Errors, Sent int64
	RPS                    float64
	P50MS, P95MS, P99MS    float64
	MaxMS                  float64
	// Kinds names the outcomes Counts indexes (OK first); Counts are the
	// answers by outcome.
	Kinds  []string
	Counts [MaxKinds]int64
	// Operations names what ByOperation indexes; ByOperation holds each
	// operation's answers by outcome, nil when the level has one
	// operation (Counts then says it all).
	Operations  []measure.Operation
	ByOperation [][MaxKinds]int64
	// CPU is the generator's own CPU time spent in the bucket.
	CPU time.Duration
	// Server holds the gauges read at the bucket's end, in the order of
	// Gauges (Config.Gauges' descriptions); NaN where missing, counters as
	// their running total.
	Server []float64
	Gauges []measure.ServerSeries
	// packed is the bucket's histogram as the series keeps it; shared,
	// never written. opPacked: by operation (OperationsObserver only).
	packed   []byte
	opPacked [][]byte
}

// Histogram is the bucket's latency histogram in hist.Encode's form, as
// the report's series has it ("" when no request was answered in it).
func (iv *Interval) Histogram() string {
	if iv.packed == nil {
		return ""
	}
	var e hist.Encoder // Text needs only the buffers it grows
	return e.Text(iv.packed)
}

// MergeHistogram adds the bucket's latencies to dst, which should be of
// hist.New's geometry.
func (iv *Interval) MergeHistogram(dst *hdrhistogram.Histogram) error {
	if iv.packed == nil {
		return nil
	}
	return hist.MergePacked(dst, iv.packed)
}
