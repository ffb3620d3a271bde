package telemetry

import (
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/internal/hist"
	"github.com/mcpbench/mcpbench/measure"
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
				op := &iv.Operations[j]
				op.outcomes = op.outcomes.plus(late.Operations[j].outcomes)
				text, err := mergeTexts(op.Histogram, late.Operations[j].Histogram)
				if err != nil {
					return fmt.Errorf("interval %d, operation %d: %w", iv.Index, j, err)
				}
				op.Histogram = text
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
	h, err := mergeEncoded(iv.Histogram, text)
	if err != nil {
		return fmt.Errorf("interval %d: %w", iv.Index, err)
	}
	enc, err := hist.Encode(h)
	if err != nil {
		return err
	}
	ms := func(us int64) measure.Figure { return measure.Figure(float64(us) / 1000) }
	iv.Histogram = enc
	iv.P50MS, iv.P95MS, iv.P99MS, iv.MaxMS = ms(h.ValueAtQuantile(50)), ms(h.ValueAtQuantile(95)), ms(h.ValueAtQuantile(99)), ms(h.Max())
	return nil
}

// mergeEncoded is the histogram of the encoded ones added ("" is empty).
func mergeEncoded(texts ...string) (*hdrhistogram.Histogram, error) {
	h := hist.New()
	for _, t := range texts {
		if t == "" {
			continue
		}
		if err := hist.MergeEncoded(h, t); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// mergeTexts is the encoded histograms added, encoded; "" when both are.
func mergeTexts(a, b string) (string, error) {
	if a == "" || b == "" {
		return a + b, nil
	}
	h, err := mergeEncoded(a, b)
	if err != nil {
		return "", err
	}
	return hist.Encode(h)
}
