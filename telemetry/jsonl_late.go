package telemetry

import (
	"fmt"

	"github.com/mcpbench/mcpbench/internal/hist"
)

// addLate folds a late line into the interval it belongs to: its counts,
// by outcome and by operation, and its latencies, so that the interval
// is the bucket the report keeps (percentiles taken again).
func (rec *Recording) addLate(late intervalLine) error {
	for i := len(rec.intervals) - 1; i >= 0; i-- {
		iv := &rec.intervals[i]
		if iv.Step != late.Step || iv.Index != late.Index {
			continue
		}
		iv.outcomes = iv.outcomes.plus(late.outcomes)
		for j := range iv.Operations {
			if j < len(late.Operations) {
				iv.Operations[j].outcomes = iv.Operations[j].outcomes.plus(late.Operations[j].outcomes)
			}
		}
		return iv.mergeHistogram(late.Histogram)
	}
	return fmt.Errorf("late answers of interval %d (step %d), which the file does not hold", late.Index, late.Step)
}

// plus is o and p added.
func (o outcomes) plus(p outcomes) outcomes {
	sum := outcomes{OK: o.OK + p.OK}
	for _, m := range []map[string]int64{o.Errors, p.Errors} {
		for k, n := range m {
			if sum.Errors == nil {
				sum.Errors = map[string]int64{}
			}
			sum.Errors[k] += n
		}
	}
	return sum
}

// mergeHistogram adds an encoded histogram to the interval's and takes
// its percentiles again.
func (iv *intervalLine) mergeHistogram(text string) error {
	if text == "" {
		return nil
	}
	h := hist.New()
	for _, t := range []string{iv.Histogram, text} {
		if t == "" {
			continue
		}
		if err := hist.MergeEncoded(h, t); err != nil {
			return fmt.Errorf("interval %d: %w", iv.Index, err)
		}
	}
	enc, err := hist.Encode(h)
	if err != nil {
		return err
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	iv.Histogram = enc
	iv.P50MS, iv.P95MS, iv.P99MS, iv.MaxMS = ms(h.ValueAtQuantile(50)), ms(h.ValueAtQuantile(95)), ms(h.ValueAtQuantile(99)), ms(h.Max())
	return nil
}
