package results

import (
	"strings"
	"testing"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
)

// TestMergeRunsOpenLoopExact: shards that carry their uncorrected and
// schedule-lag histograms merge into exactly the figures of the whole.
func TestMergeRunsOpenLoopExact(t *testing.T) {
	rs := shardRuns(t, latencies(1000), 3)
	wholeUnc, wholeLag := hist.New(), hist.New()
	for i, r := range rs {
		rate := 50.0
		r.Rate, r.OfferedRPS, r.Workload.Mode = &rate, rate, "open"
		unc, lag := hist.New(), hist.New()
		for v := int64(1); v <= 500; v++ {
			_ = unc.RecordValue(v*int64(i+1)*37 + 100)
			_ = lag.RecordValue(v*int64(i+3) + 5)
		}
		wholeUnc.Merge(unc)
		wholeLag.Merge(lag)
		r.Uncorrected, r.ScheduleLagMS = &measure.Uncorrected{}, &measure.ScheduleLag{}
		r.Uncorrected.Fill(unc)
		r.ScheduleLagMS.Fill(lag)
	}
	m, _, err := MergeRuns(rs, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want measure.Uncorrected
	want.Fill(wholeUnc)
	var wantLag measure.ScheduleLag
	wantLag.Fill(wholeLag)
	if *m.Uncorrected != want || *m.ScheduleLagMS != wantLag {
		t.Fatalf("merged %+v / %+v, want %+v / %+v", *m.Uncorrected, *m.ScheduleLagMS, want, wantLag)
	}
	for _, n := range m.Merged.Notes {
		if strings.Contains(n, "uncorrected") {
			t.Fatalf("note %q: the figures are exact", n)
		}
	}
}
