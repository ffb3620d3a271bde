// Package sweep analyses a series of measured load points: which loads to
// measure (value lists, ranges, refinement), where throughput stops scaling
// (Kneedle), how the server scales (Universal Scalability Law), and which
// load meets the SLO. Everything here is a pure function of bench.Points.
package sweep

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// MaxPoints bounds how many load points a list or range may expand to, so a
// typo such as 1:1000000:+1 fails at parse time instead of running for days.
const MaxPoints = 1000

// MaxConcurrency bounds a single concurrency value: a million workers is
// beyond any one generator, and the bound keeps range arithmetic in int.
const MaxConcurrency = 1_000_000

// DefaultRangeStep is the progression a range uses without an explicit step:
// doubling, as in the seed script's 1,2,4,8 values.
const DefaultRangeStep = "x2"

// ParseConcurrencyValues parses --concurrency-values, e.g. "1,2,4,8". The
// result is sorted, deduplicated and positive.
func ParseConcurrencyValues(s string) ([]int, error) {
	const of = "concurrency values"
	fields, err := splitList(of, s)
	if err != nil {
		return nil, err
	}
	out := make([]int, 0, len(fields))
	for _, f := range fields {
		n, err := parsePositiveInt(of, f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return sortedUniqueInts(of, out)
}

// ParseRateValues parses --rate-values, e.g. "100,200,400" (requests/s;
// fractions allowed). The result is sorted, deduplicated and positive.
func ParseRateValues(s string) ([]float64, error) {
	const of = "rate values"
	fields, err := splitList(of, s)
	if err != nil {
		return nil, err
	}
	out := make([]float64, 0, len(fields))
	for _, f := range fields {
		v, err := parsePositiveFloat(of, f)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return sortedUniqueFloats(of, out)
}

// ParseConcurrencyRange parses --concurrency-range FROM:TO[:xF|:+S]. xF
// multiplies by F (F > 1) and +S adds S (a whole number); without a step the
// range doubles. TO itself is always measured, even when the progression
// steps over it, because the user asked for that load explicitly.
func ParseConcurrencyRange(s string) ([]int, error) {
	const of = "concurrency range"
	r, err := parseRange(of, s)
	if err != nil {
		return nil, err
	}
	from, err := parsePositiveInt(of, r.from)
	if err != nil {
		return nil, err
	}
	to, err := parsePositiveInt(of, r.to)
	if err != nil {
		return nil, err
	}
	if from > to {
		return nil, levelsErrorf(of, " %q: FROM (%d) is above TO (%d)", s, from, to)
	}
	if !r.geometric && r.step != math.Trunc(r.step) {
		return nil, levelsErrorf(of, " %q: the step +%s must be a whole number", s, r.stepText)
	}
	vals, err := expand(of, s, float64(from), float64(to), r)
	if err != nil {
		return nil, err
	}
	out := make([]int, 0, len(vals))
	for _, v := range vals {
		out = append(out, int(math.Round(v)))
	}
	return sortedUniqueInts(of, out)
}

// ParseRateRange parses --rate-range FROM:TO[:xF|:+S] in requests/s, with
// the same rules as ParseConcurrencyRange but fractional values allowed.
func ParseRateRange(s string) ([]float64, error) {
	const of = "rate range"
	r, err := parseRange(of, s)
	if err != nil {
		return nil, err
	}
	from, err := parsePositiveFloat(of, r.from)
	if err != nil {
		return nil, err
	}
	to, err := parsePositiveFloat(of, r.to)
	if err != nil {
		return nil, err
	}
	if from > to {
		return nil, levelsErrorf(of, " %q: FROM (%s) is above TO (%s)", s, r.from, r.to)
	}
	vals, err := expand(of, s, from, to, r)
	if err != nil {
		return nil, err
	}
	return sortedUniqueFloats(of, vals)
}

type rangeSpec struct {
	from, to  string
	geometric bool
	step      float64
	stepText  string
}

func parseRange(of, s string) (rangeSpec, error) {
	usage := levelsErrorf(of, " %q: want FROM:TO[:xF|:+S], e.g. 1:64 (doubling), 1:64:x2 or 10:100:+10", s)
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) < 2 || len(parts) > 3 {
		return rangeSpec{}, usage
	}
	r := rangeSpec{from: strings.TrimSpace(parts[0]), to: strings.TrimSpace(parts[1])}
	step := DefaultRangeStep
	if len(parts) == 3 {
		step = strings.TrimSpace(parts[2])
	}
	if len(step) < 2 {
		return rangeSpec{}, usage
	}
	r.stepText = step[1:]
	v, err := strconv.ParseFloat(r.stepText, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return rangeSpec{}, usage
	}
	switch step[0] {
	case 'x', 'X', '*':
		if v <= 1 {
			return rangeSpec{}, levelsErrorf(of, " %q: the factor x%s must be above 1", s, r.stepText)
		}
		r.geometric = true
	case '+':
		if v <= 0 {
			return rangeSpec{}, levelsErrorf(of, " %q: the step +%s must be positive", s, r.stepText)
		}
	default:
		return rangeSpec{}, usage
	}
	r.step = v
	return r, nil
}

// expand lists from, from∘step, ... up to to, then to itself. Each value is
// computed from the index, not accumulated, so +0.1 steps do not drift.
func expand(of, s string, from, to float64, r rangeSpec) ([]float64, error) {
	const slack = 1e-9 // tolerate float error when a step lands exactly on TO
	var out []float64
	for i := 0; ; i++ {
		var v float64
		if r.geometric {
			v = from * math.Pow(r.step, float64(i))
		} else {
			v = from + float64(i)*r.step
		}
		if v > to*(1+slack) {
			break
		}
		out = append(out, roundSig(v))
		if len(out) > MaxPoints {
			return nil, levelsErrorf(of, " %q: expands to more than %d points; use a larger step", s, MaxPoints)
		}
	}
	if len(out) == 0 || out[len(out)-1] < to {
		out = append(out, to)
	}
	return out, nil
}

// roundSig drops float noise (0.30000000000000004) that would otherwise end
// up in report fields and file names.
func roundSig(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 9, 64), 64)
	return r
}

func splitList(of, s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, levelsErrorf(of, " %q: want a comma-separated list, e.g. 1,2,4,8", s)
	}
	return out, nil
}

func parsePositiveInt(of, f string) (int, error) {
	n, err := strconv.Atoi(f)
	if err != nil || n <= 0 {
		return 0, levelsErrorf(of, ": %q is not a positive whole number", f)
	}
	if n > MaxConcurrency {
		return 0, levelsErrorf(of, ": %d is above the %d concurrency limit", n, MaxConcurrency)
	}
	return n, nil
}

func parsePositiveFloat(of, f string) (float64, error) {
	v, err := strconv.ParseFloat(f, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 0, levelsErrorf(of, ": %q is not a positive number", f)
	}
	return v, nil
}

func sortedUniqueInts(of string, v []int) ([]int, error) {
	slices.Sort(v)
	v = slices.Compact(v)
	if len(v) > MaxPoints {
		return nil, levelsErrorf(of, ": %d points is more than the %d allowed", len(v), MaxPoints)
	}
	return v, nil
}

func sortedUniqueFloats(of string, v []float64) ([]float64, error) {
	slices.Sort(v)
	v = slices.Compact(v)
	if len(v) > MaxPoints {
		return nil, levelsErrorf(of, ": %d points is more than the %d allowed", len(v), MaxPoints)
	}
	return v, nil
}

// LevelsError is a list or range of load levels that cannot be used. Of
// says which kind was being read ("concurrency values", "rate range"), so
// a caller can name where the text came from; Detail is the rest of the
// message, beginning with the text read or a colon.
type LevelsError struct{ Of, Detail string }

func (e *LevelsError) Error() string { return e.Of + e.Detail }

func levelsErrorf(of, format string, a ...any) error {
	return &LevelsError{Of: of, Detail: fmt.Sprintf(format, a...)}
}
