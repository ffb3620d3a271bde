package results

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
)

// pacedWorkload answers after a short sleep; every fifth request of a
// worker fails as "timeout".
type pacedWorkload struct{}

func (pacedWorkload) Operations() []measure.Operation { return nil }
func (pacedWorkload) Kinds() []string                 { return []string{"ok", "timeout"} }
func (pacedWorkload) NewWorker(context.Context, int) (bench.Worker, error) {
	return &pacedWorker{}, nil
}

type pacedWorker struct{ n int }

func (w *pacedWorker) Do(context.Context) bench.Sample {
	w.n++
	time.Sleep(time.Millisecond)
	if w.n%5 == 0 {
		return bench.Sample{Kind: 1, Err: errors.New("late")}
	}
	return bench.Sample{Kind: bench.OK}
}

func (*pacedWorker) Close(context.Context) error { return nil }

// TestMergedSeriesSumsExactly runs two shards side by side through the
// engine, through JSON as merge reads them, and merges them: the merged
// series still adds up to the merged totals, histograms included.
func TestMergedSeriesSumsExactly(t *testing.T) {
	rs := make([]*RunReport, 2)
	var wg sync.WaitGroup
	for i := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg := bench.Config{Model: bench.ClosedLoop{Concurrency: 2}, Duration: 700 * time.Millisecond, Interval: 100 * time.Millisecond}
			if i == 1 {
				cfg.Model = bench.OpenLoop{Rate: 400, MaxInFlight: 4}
			}
			p, err := bench.Run(context.Background(), cfg, pacedWorkload{})
			if err != nil {
				t.Error(err)
				return
			}
			rs[i] = &RunReport{Header: Header{Schema: SchemaRun, StartedAt: time.Now()}, Workload: Workload{Mode: "closed"}, Point: p, Shard: &Shard{Index: i, Count: 2}}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	rs[1].Rate = nil // one mode for the merge's checks; the series do not care
	for i, r := range rs {
		var b bytes.Buffer
		if err := json.NewEncoder(&b).Encode(r); err != nil {
			t.Fatal(err)
		}
		back, err := ReadRunReport(&b)
		if err != nil {
			t.Fatal(err)
		}
		rs[i] = back
	}
	m, _, err := MergeRuns(rs, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Series
	if s == nil {
		t.Fatalf("merged report has no series (notes %v)", m.Merged.Notes)
	}
	var sent, ok, timeouts int64
	merged := hist.New()
	for i := range s.Len() {
		sent, ok = sent+s.Sent[i], ok+s.OK[i]
		timeouts += s.Errors["timeout"][i]
		if s.Histograms[i] != "" {
			h, err := hist.Decode(s.Histograms[i])
			if err != nil {
				t.Fatal(err)
			}
			merged.Merge(h)
		}
	}
	if sent != m.Requests || ok != m.OK || timeouts != m.ErrorsByKind["timeout"] || m.Requests != rs[0].Requests+rs[1].Requests {
		t.Errorf("merged series: sent %d ok %d timeouts %d; totals %d %d %v", sent, ok, timeouts, m.Requests, m.OK, m.ErrorsByKind)
	}
	if merged.TotalCount() != m.Hist.TotalCount() || merged.ValueAtQuantile(99) != m.Hist.ValueAtQuantile(99) || merged.Max() != m.Hist.Max() {
		t.Errorf("merged buckets' histograms differ from the merged point's")
	}
	if s.InFlight[s.Len()-1] != 0 {
		t.Errorf("in flight at the end %d", s.InFlight[s.Len()-1])
	}
}

// TestMergeSeriesAlignsByTime: a report that started two intervals later
// lands two buckets in.
func TestMergeSeriesAlignsByTime(t *testing.T) {
	a := synthSeries(t, 4, steadyLatency)
	b := synthSeries(t, 4, steadyLatency)
	b.StartedAt = a.StartedAt.Add(2 * time.Second)
	b.Server = []measure.ServerSeries{gauge("rss_bytes", "bytes", measure.GaugeLevel, 4, func(i int) float64 { return float64(i) })}
	s, notes, err := mergeSeries([]measure.Point{{Series: a}, {Series: b}})
	if err != nil || len(notes) != 0 {
		t.Fatal(err, notes)
	}
	want := []int64{200, 200, 400, 400, 200, 200}
	for i, w := range want {
		if s.OK[i] != w {
			t.Fatalf("ok column %v, want %v", s.OK, want)
		}
	}
	if g := s.Server[0].Values; len(g) != 6 || g[2] != 0 || g[5] != 3 || !math.IsNaN(g[1]) {
		t.Errorf("server column %v: want NaN, NaN, 0..3", g)
	}
	if _, notes, _ := mergeSeries([]measure.Point{{Series: a}, {}}); len(notes) != 1 {
		t.Errorf("a report without a series: notes %v", notes)
	}
}

// TestMergeSeriesRefusesBrokenColumns: a report edited by hand (or cut
// short) is refused with a message, not a panic.
func TestMergeSeriesRefusesBrokenColumns(t *testing.T) {
	a := synthSeries(t, 4, steadyLatency)
	b := synthSeries(t, 4, steadyLatency)
	b.Sent = b.Sent[:2]
	if _, _, err := mergeSeries([]measure.Point{{Series: a}, {Series: b}}); !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "sent has 2 buckets") {
		t.Errorf("short column: %v", err)
	}
	c := synthSeries(t, 4, steadyLatency)
	c.IntervalS = 0
	if _, _, err := mergeSeries([]measure.Point{{Series: a}, {Series: c}}); !errors.Is(err, ErrMismatch) {
		t.Errorf("zero interval: %v", err)
	}
}
