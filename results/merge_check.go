package results

import (
	"fmt"
	"net/url"
	"slices"
	"sort"

	"github.com/mcpbench/mcpbench/internal/textfmt"
)

// checkShards applies the shard rules: all reports carry a shard or none
// does; all shards of one count; no index twice; none missing unless
// allowed.
// WarnNoShard is merge's warning for reports that name no shard.
const WarnNoShard = "the reports carry no shard: merged as independent generators run at the same time"

// MissingShardsError is a sharded run with shards absent, merged without
// MergeOptions.AllowMissing. It is an ErrMismatch.
type MissingShardsError struct {
	Missing []int
	Count   int
}

func (e *MissingShardsError) Error() string {
	return fmt.Sprintf("%v: shards %v of %d are missing", ErrMismatch, e.Missing, e.Count)
}

func (e *MissingShardsError) Unwrap() error { return ErrMismatch }

func checkShards(shards []*Shard, opt MergeOptions) (*MergeInfo, []string, error) {
	info := &MergeInfo{Reports: len(shards)}
	with := 0
	for _, s := range shards {
		if s != nil {
			with++
		}
	}
	switch {
	case with == 0:
		return info, []string{WarnNoShard}, nil
	case with < len(shards):
		return nil, nil, mismatch("%d of %d reports carry a shard and the others do not: merge shards of one sharded run", with, len(shards))
	}
	count := shards[0].Count
	seen := map[int]bool{}
	for _, s := range shards {
		if s.Count != count {
			return nil, nil, mismatch("shards of different counts (%d/%d and %d/%d): they are not one sharded run", shards[0].Index, count, s.Index, s.Count)
		}
		if s.Index < 0 || s.Index >= count {
			return nil, nil, mismatch("shard %d/%d is out of range", s.Index, count)
		}
		if seen[s.Index] {
			return nil, nil, mismatch("shard %d/%d is given twice", s.Index, count)
		}
		seen[s.Index] = true
		info.Shards = append(info.Shards, *s)
	}
	sort.Slice(info.Shards, func(i, j int) bool { return info.Shards[i].Index < info.Shards[j].Index })
	for i := range count {
		if !seen[i] {
			info.Missing = append(info.Missing, i)
		}
	}
	if len(info.Missing) == 0 {
		return info, nil, nil
	}
	list := fmt.Sprint(info.Missing)
	if !opt.AllowMissing {
		return nil, nil, &MissingShardsError{Missing: info.Missing, Count: count}
	}
	return info, []string{fmt.Sprintf("shards %s of %d are missing: the merged figures cover %d of %d shards", list, count, len(info.Shards), count)}, nil
}

// refuseSameRunTwice catches the same file given twice when reports carry
// no shard to tell them apart.
func refuseSameRunTwice(rs []*RunReport) error {
	seen := map[string]int{}
	for i, r := range rs {
		key := r.StartedAt.String() + "|" + r.Histogram
		if j, ok := seen[key]; ok && r.Requests > 0 {
			return mismatch("reports %d and %d are the same run", j+1, i+1)
		}
		seen[key] = i
	}
	return nil
}

func sameRunWork(a, b *RunReport, i int) error {
	if b.Schema != a.Schema {
		return mismatch("report %d is %s, report 1 is %s", i+1, b.Schema, a.Schema)
	}
	if err := sameTarget(a.Target, b.Target, i); err != nil {
		return err
	}
	return sameWorkload(&a.Workload, &b.Workload, i)
}

func sameSweepWork(a, b *SweepReport, i int) error {
	if b.Schema != a.Schema {
		return mismatch("report %d is %s, report 1 is %s", i+1, b.Schema, a.Schema)
	}
	if err := sameTarget(a.Target, b.Target, i); err != nil {
		return err
	}
	if (a.Workload == nil) != (b.Workload == nil) {
		return mismatch("report %d and report 1 differ in whether they record a workload", i+1)
	}
	if a.Workload != nil {
		if err := sameWorkload(a.Workload, b.Workload, i); err != nil {
			return err
		}
	}
	if a.SLO != b.SLO {
		return mismatch("report %d has a different SLO from report 1", i+1)
	}
	if len(a.Points) != len(b.Points) {
		return mismatch("report %d has %d points, report 1 has %d: not the same sweep levels", i+1, len(b.Points), len(a.Points))
	}
	return nil
}

func sameTarget(a, b Target, i int) error {
	if pa, pb := urlPath(a.URL), urlPath(b.URL); pa != pb {
		return mismatch("report %d measured path %q, report 1 %q: different targets", i+1, pb, pa)
	}
	return nil
}

func sameWorkload(a, b *Workload, i int) error {
	if a.Mode != b.Mode {
		return mismatch("report %d is %s loop, report 1 is %s loop: different workloads", i+1, b.Mode, a.Mode)
	}
	if !slices.Equal(a.Operations, b.Operations) {
		return mismatch("report %d sends %s, report 1 sends %s: different workloads", i+1, textfmt.OrDash(OperationsLine(b.Operations)), textfmt.OrDash(OperationsLine(a.Operations)))
	}
	return nil
}

func urlPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.Path == "" {
		return "/"
	}
	return u.Path
}
