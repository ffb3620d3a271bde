package results

import "github.com/mcpbench/mcpbench/bench"

// Series is a run's (or a sweep point's) figures interval by interval:
// the engine fills it (it travels inside bench.Point, so every sweep point
// carries its own), and this package merges it across shards and judges
// its trends. The type lives in bench because a Point carries it and bench
// may not import results; this name is the one report code should use.
type Series = bench.Series

// ServerSeries is one quantity sampled from the server once a bucket.
type ServerSeries = bench.ServerSeries
