package main

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbench/mcpbench/results"
)

// shardSpec is "--shard i/N": this process is shard i (0-based, as a
// Kubernetes Indexed Job numbers its pods) of N.
type shardSpec struct {
	index, count int
}

// maxShards bounds N: more generators than this is a typo, not a plan.
const maxShards = 10_000

// parseShard reads "i/N" with 0 <= i < N.
func parseShard(s string) (shardSpec, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return shardSpec{}, usagef("--shard %q: want INDEX/COUNT, e.g. 0/4", s)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	switch {
	case err1 != nil || err2 != nil:
		return shardSpec{}, usagef("--shard %q: want INDEX/COUNT, e.g. 0/4", s)
	case n < 1 || n > maxShards:
		return shardSpec{}, usagef("--shard %q: COUNT must be 1..%d", s, maxShards)
	case i < 0 || i >= n:
		return shardSpec{}, usagef("--shard %q: INDEX is 0-based, so 0..%d", s, n-1)
	}
	return shardSpec{index: i, count: n}, nil
}

// share is shard i's part of a whole split over n so that the parts sum
// to the whole exactly: the first whole%n shards take one more (1000 over
// 3 is 334+333+333).
func share(whole int64, i, n int) int64 {
	q, r := whole/int64(n), whole%int64(n)
	if int64(i) < r {
		q++
	}
	return q
}

// parseStartAt reads an RFC 3339 time or a Unix time in seconds (an
// optional '@' in front, as date(1) writes it; fractions allowed).
func parseStartAt(s string) (time.Time, error) {
	t := strings.TrimSpace(s)
	if ts, err := time.Parse(time.RFC3339Nano, t); err == nil {
		return ts, nil
	}
	num := strings.TrimPrefix(t, "@")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return time.Time{}, usagef("--start-at %q: want an RFC 3339 time (2026-05-01T12:00:00Z) or Unix seconds", s)
	}
	// Unix milliseconds would land past the year 5000: catch the slip.
	if v > 1e11 {
		return time.Time{}, usagef("--start-at %q: Unix time in seconds, not milliseconds", s)
	}
	sec, frac := math.Modf(v)
	return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC(), nil
}

// shardFlags are --shard and --start-at, shared by run and sweep.
type shardFlags struct {
	shard   string
	startAt string
	spec    *shardSpec
	at      time.Time
}

// flags declares --shard and --start-at.
func (s *shardFlags) flags() []flagDecl {
	return []flagDecl{
		{name: "shard", to: &s.shard, group: "Shards", usage: "run shard `i/N` (0-based) of a load split over N generators: this one takes its share of -c, --rate and -n"},
		{name: "start-at", to: &s.startAt, group: "Shards", usage: "after connecting, wait until `TIME` (RFC 3339 or Unix seconds) to start sending, so shards line up"},
	}
}

// parse checks the flags; call it before split or wait.
func (s *shardFlags) parse() error {
	if s.shard != "" {
		sp, err := parseShard(s.shard)
		if err != nil {
			return err
		}
		s.spec = &sp
	}
	if s.startAt != "" {
		at, err := parseStartAt(s.startAt)
		if err != nil {
			return err
		}
		s.at = at
	}
	return nil
}

// splitRun replaces the whole load in w by this shard's share. The
// concurrency is split when it is the closed loop's worker count or an
// explicit bound on an open loop (concurrencySet).
func (s *shardFlags) splitRun(w *workloadFlags, concurrencySet bool) error {
	if err := s.parse(); err != nil || s.spec == nil {
		return err
	}
	i, n := s.spec.index, s.spec.count
	if w.rate == 0 || concurrencySet {
		c := share(int64(w.concurrency), i, n)
		if c < 1 {
			return usagef("-c %d cannot be split over %d shards: each shard needs a worker", w.concurrency, n)
		}
		w.concurrency = int(c)
	}
	if w.total > 0 {
		t := share(w.total, i, n)
		if t < 1 {
			return usagef("-n %d cannot be split over %d shards: each shard needs a request", w.total, n)
		}
		w.total = t
	}
	if w.maxInFlight > 0 {
		m := share(int64(w.maxInFlight), i, n)
		if m < 1 {
			return usagef("--max-in-flight %d cannot be split over %d shards", w.maxInFlight, n)
		}
		w.maxInFlight = int(m)
	}
	w.warmup = share(w.warmup, i, n)
	w.rate /= float64(n)
	w.maxRate /= float64(n)
	return nil
}

// splitSweep is splitRun for a sweep: every level is split. Refinement
// would pick its next level from this shard's figures alone, so shards
// would measure different levels; it is refused.
func (s *shardFlags) splitSweep(w *workloadFlags, cs []int, rs []float64, refine bool) ([]int, []float64, error) {
	if err := s.parse(); err != nil || s.spec == nil {
		return cs, rs, err
	}
	if refine {
		return nil, nil, usagef("--refine cannot be sharded: each shard would refine on its own figures")
	}
	i, n := s.spec.index, s.spec.count
	outC := make([]int, len(cs))
	for k, c := range cs {
		v := share(int64(c), i, n)
		if v < 1 {
			return nil, nil, usagef("concurrency %d cannot be split over %d shards: each shard needs a worker", c, n)
		}
		outC[k] = int(v)
	}
	outR := make([]float64, len(rs))
	for k, r := range rs {
		outR[k] = r / float64(n)
	}
	if w.total > 0 {
		t := share(w.total, i, n)
		if t < 1 {
			return nil, nil, usagef("--total %d cannot be split over %d shards", w.total, n)
		}
		w.total = t
	}
	if w.maxInFlight > 0 {
		w.maxInFlight = int(max(1, share(int64(w.maxInFlight), i, n)))
	}
	w.warmup = share(w.warmup, i, n)
	return outC, outR, nil
}

// report is the shard for the report, nil when not sharded.
func (s *shardFlags) report() *results.Shard {
	if s.spec == nil {
		return nil
	}
	return &results.Shard{Index: s.spec.index, Count: s.spec.count}
}
