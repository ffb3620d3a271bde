package results

import (
	"fmt"
	"math"
	"slices"

	"github.com/mcpbench/mcpbench/measure"
)

// AbandonedSeries is the series of the running count of sessions ended
// without a DELETE (--abandon-sessions), sampled beside the server's.
const AbandonedSeries = "sessions_abandoned"

// AbandonedMemory is the server memory kept per abandoned session: the
// Theil–Sen slope of a server memory series against the running count of
// abandoned sessions at the same instants, with its 95% interval. A server
// that frees an abandoned session's state (on a timeout, say) shows a
// slope near zero; one that keeps it, the bytes each costs.
type AbandonedMemory struct {
	// Series is the memory gauge fitted (rss_bytes from --server-pid,
	// else a resident-memory metric), Source where it was read.
	Series string `json:"series"`
	Source string `json:"source"`
	Points int    `json:"points"`
	// Sessions is how many were abandoned over the fitted buckets.
	Sessions        float64 `json:"sessions"`
	BytesPerSession float64 `json:"bytes_per_session"`
	Low             float64 `json:"bytes_per_session_low"`
	High            float64 `json:"bytes_per_session_high"`
	R2              float64 `json:"r2"`
	// Material: the interval lies above zero and the memory kept comes to
	// at least a megabyte over the run. Verdict says so in words.
	Material bool   `json:"material"`
	Verdict  string `json:"verdict,omitempty"`
}

// materialKept is the memory kept over a run that makes a slope matter.
const materialKept = 1 << 20

// AnalyzeAbandoned fits the server's memory against the abandoned
// sessions of s; nil when s has not both, or too few points.
func AnalyzeAbandoned(s *measure.Series) *AbandonedMemory {
	if s == nil {
		return nil
	}
	var count, mem *measure.ServerSeries
	for i := range s.Server {
		g := &s.Server[i]
		switch {
		case g.Name == AbandonedSeries:
			count = g
		case mem == nil && g.Unit == "bytes" && g.Kind == measure.GaugeLevel && memoryGauge(g.Name):
			mem = g
		}
	}
	if count == nil || mem == nil {
		return nil
	}
	// A counter's column holds each bucket's increase: the running
	// total is their sum (unknown from a missing reading on).
	total := make([]float64, len(count.Values))
	sum := 0.0
	for i, v := range count.Values {
		sum += v
		total[i] = sum
	}
	fit, ok := TheilSen(total, mem.Values, trendConfidence)
	if !ok {
		return nil
	}
	xs, _ := dropNaN(total, mem.Values)
	a := &AbandonedMemory{Series: mem.Name, Source: mem.Source, Points: fit.N, Sessions: slices.Max(xs) - slices.Min(xs),
		BytesPerSession: fit.Slope, Low: fit.Low, High: fit.High, R2: fit.R2}
	a.Material = a.Low > 0 && a.BytesPerSession*a.Sessions >= materialKept
	if a.Material {
		a.Verdict = fmt.Sprintf("the server keeps about %s per abandoned session (95%% interval %s to %s, %g sessions): sessions never closed leak",
			kib(a.BytesPerSession), kib(a.Low), kib(a.High), a.Sessions)
	}
	return a
}

// memoryGauge says whether a gauge's name is the server's resident memory.
func memoryGauge(name string) bool {
	return name == "rss_bytes" || name == "process_resident_memory_bytes"
}

func kib(b float64) string { return fmt.Sprintf("%.1f KiB", math.Round(b/102.4)/10) }
