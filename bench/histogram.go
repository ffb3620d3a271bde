package bench

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
)

// NewHistogram returns an empty latency histogram in microseconds, of the
// geometry every report's histograms have (internal/hist).
func NewHistogram() *hdrhistogram.Histogram { return hist.New() }
