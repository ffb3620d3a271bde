package main

import (
	"strings"
	"testing"
	"time"
)

func TestParseShard(t *testing.T) {
	cases := []struct {
		in       string
		i, n     int
		errWords string
	}{
		{"0/4", 0, 4, ""},
		{"3/4", 3, 4, ""},
		{" 2 / 3 ", 2, 3, ""},
		{"0/1", 0, 1, ""},
		{"4/4", 0, 0, "0-based, so 0..3"},
		{"-1/4", 0, 0, "0-based"},
		{"1/0", 0, 0, "COUNT must be"},
		{"1/10001", 0, 0, "COUNT must be"},
		{"1", 0, 0, "INDEX/COUNT"},
		{"a/b", 0, 0, "INDEX/COUNT"},
		{"1/2/3", 0, 0, "INDEX/COUNT"},
		{"", 0, 0, "INDEX/COUNT"},
	}
	for _, c := range cases {
		s, err := parseShard(c.in)
		if c.errWords != "" {
			if err == nil || !strings.Contains(err.Error(), c.errWords) {
				t.Errorf("%q: %v, want an error saying %q", c.in, err, c.errWords)
			}
			continue
		}
		if err != nil || s.index != c.i || s.count != c.n {
			t.Errorf("%q: %+v %v", c.in, s, err)
		}
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/4", "3/4", "4/4", "-1/2", "1/", "/1", "x", "0/10000", "99999999999999999999/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := parseShard(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if sp.count < 1 || sp.count > maxShards || sp.index < 0 || sp.index >= sp.count {
			t.Fatalf("%q accepted as %+v", s, sp)
		}
	})
}

func TestShareSumsExactly(t *testing.T) {
	if got := []int64{share(1000, 0, 3), share(1000, 1, 3), share(1000, 2, 3)}; got[0] != 334 || got[1] != 333 || got[2] != 333 {
		t.Errorf("1000 over 3: %v", got)
	}
	for _, whole := range []int64{0, 1, 2, 7, 100, 1000, 1001, 99991} {
		for n := 1; n <= 13; n++ {
			var sum, lo, hi int64 = 0, whole, 0
			for i := range n {
				s := share(whole, i, n)
				sum += s
				lo, hi = min(lo, s), max(hi, s)
			}
			if sum != whole || hi-lo > 1 {
				t.Errorf("%d over %d: sum %d, spread %d", whole, n, sum, hi-lo)
			}
		}
	}
}

func TestParseStartAt(t *testing.T) {
	cases := []struct {
		in   string
		want time.Time
		err  string
	}{
		{"2026-05-01T12:00:00Z", time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), ""},
		{"2026-05-01T14:00:00.5+02:00", time.Date(2026, 5, 1, 12, 0, 0, 5e8, time.UTC), ""},
		{"1777636800", time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), ""},
		{"@1777636800.25", time.Date(2026, 5, 1, 12, 0, 0, 25e7, time.UTC), ""},
		{"1777636800000", time.Time{}, "not milliseconds"},
		{"tomorrow", time.Time{}, "RFC 3339"},
		{"-5", time.Time{}, "RFC 3339"},
		{"2026-05-01 12:00", time.Time{}, "RFC 3339"},
	}
	for _, c := range cases {
		got, err := parseStartAt(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%q: %v %v, want %v", c.in, got, err, c.want)
		}
	}
}

func TestSplitRun(t *testing.T) {
	cases := []struct {
		name   string
		shard  string
		in     workloadFlags
		cSet   bool
		want   workloadFlags
		errMsg string
	}{
		{"closed loop", "0/3", workloadFlags{concurrency: 10, total: 1000, warmup: 5}, true, workloadFlags{concurrency: 4, total: 334, warmup: 2}, ""},
		{"closed loop, last shard", "2/3", workloadFlags{concurrency: 10, total: 1000, warmup: 5}, true, workloadFlags{concurrency: 3, total: 333, warmup: 1}, ""},
		{"open loop keeps default -c", "1/4", workloadFlags{concurrency: 1, rate: 400, maxInFlight: 40}, false, workloadFlags{concurrency: 1, rate: 100, maxInFlight: 10}, ""},
		{"open loop with -c", "1/4", workloadFlags{concurrency: 8, rate: 400}, true, workloadFlags{concurrency: 2, rate: 100}, ""},
		{"capped closed loop", "0/2", workloadFlags{concurrency: 4, maxRate: 100}, true, workloadFlags{concurrency: 2, maxRate: 50}, ""},
		{"too few workers", "3/4", workloadFlags{concurrency: 3}, true, workloadFlags{}, "cannot be split over 4 shards"},
		{"too few requests", "3/4", workloadFlags{concurrency: 4, total: 3}, true, workloadFlags{}, "-n 3 cannot be split"},
		{"bad spec", "4/4", workloadFlags{concurrency: 4}, true, workloadFlags{}, "0-based"},
		{"not sharded", "", workloadFlags{concurrency: 3, total: 7}, true, workloadFlags{concurrency: 3, total: 7}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := shardFlags{shard: c.shard}
			w := c.in
			err := s.splitRun(&w, c.cSet)
			if c.errMsg != "" {
				if err == nil || !strings.Contains(err.Error(), c.errMsg) {
					t.Fatalf("%v, want %q", err, c.errMsg)
				}
				return
			}
			if err != nil || w != c.want {
				t.Fatalf("got %+v (%v), want %+v", w, err, c.want)
			}
			if (s.report() != nil) != (c.shard != "") {
				t.Errorf("report shard %+v", s.report())
			}
		})
	}
}

func TestSplitSweep(t *testing.T) {
	s := shardFlags{shard: "1/4"}
	w := workloadFlags{total: 1000, warmup: 4}
	cs, rs, err := s.splitSweep(&w, []int{4, 8, 10}, nil, false)
	if err != nil || len(rs) != 0 || cs[0] != 1 || cs[1] != 2 || cs[2] != 3 || w.total != 250 || w.warmup != 1 {
		t.Fatalf("%v %v %v %+v", cs, rs, err, w)
	}
	w = workloadFlags{}
	_, rs, err = s.splitSweep(&w, nil, []float64{100, 300}, false)
	if err != nil || rs[0] != 25 || rs[1] != 75 {
		t.Fatalf("rates %v %v", rs, err)
	}
	if _, _, err := s.splitSweep(&w, []int{1, 2, 4}, nil, false); err == nil || !strings.Contains(err.Error(), "concurrency 1 cannot be split") {
		t.Errorf("too small a level: %v", err)
	}
	if _, _, err := s.splitSweep(&w, []int{4}, nil, true); err == nil || !strings.Contains(err.Error(), "--refine") {
		t.Errorf("refine: %v", err)
	}
}
