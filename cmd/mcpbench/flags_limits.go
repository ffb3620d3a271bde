package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpbench/mcpbench/sweep"
)

// Every numeric flag carries its range: a value given on the command line
// outside it is refused in one line, exit 2, before anything is dialled. A
// default is never checked (it is in range by construction), so a zero
// default may stand for "not set" while an explicit 0 that would silently
// mean the same is refused, unless the flag's help says what 0 means.

// Upper bounds for values no run could mean: a typo's extra zeros, or a
// number that overflows what it is turned into.
const (
	maxWorkers     = sweep.MaxConcurrency // workers, connections, in-flight requests
	maxProcs       = 1024                 // stdio server processes
	maxRequests    = 1e12                 // a year at 30,000 requests/s
	maxRate        = sweep.MaxRate        // requests/s
	maxRunTime     = 366 * 24 * time.Hour // -d, --ramp-up
	maxWait        = 24 * time.Hour       // timeouts, pauses, intervals
	maxBytes       = 1 << 30              // one answer
	maxSLOMillis   = 24 * 3600 * 1000     // a day
	maxCardinality = 1_000_000            // argument sets per tool
)

// limit is a numeric flag's accepted range, inclusive unless open.
type limit struct {
	min, max float64
	openMin  bool // min itself is refused: a rate or a duration above 0
}

// Ranges the flags share.
func atLeastOne(max float64) *limit       { return &limit{min: 1, max: max} }
func zeroOrMore(max float64) *limit       { return &limit{min: 0, max: max} }
func above0(max float64) *limit           { return &limit{min: 0, max: max, openMin: true} }
func durationUpTo(d time.Duration) *limit { return &limit{min: 0, max: d.Seconds(), openMin: true} }
func pauseUpTo(d time.Duration) *limit    { return &limit{min: 0, max: d.Seconds()} }

var (
	fraction = &limit{min: 0, max: 1}
	anyValue = &limit{min: math.Inf(-1), max: math.Inf(1)} // every value the type holds is meaningful
)

// flagLimit reads back the range of f; ok is false for a flag without one.
func flagLimit(f *pflag.Flag) (l limit, ok bool) {
	a := f.Annotations[limitsKey]
	if len(a) != 3 {
		return limit{}, false
	}
	l.min, _ = strconv.ParseFloat(a[0], 64)
	l.max, _ = strconv.ParseFloat(a[1], 64)
	l.openMin = a[2] == "true"
	return l, true
}

// numericTypes are the pflag value types checkLimits understands.
var numericTypes = map[string]string{
	"int": "a whole number", "int64": "a whole number", "uint64": "a whole number, 0 or more",
	"float64": "a number", "duration": "a duration such as 500ms, 30s or 2m",
}

// checkFlags refuses a flag given outside its range or its values.
func checkFlags(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		if err = checkValues(f); err != nil {
			return
		}
		l, ok := flagLimit(f)
		if !ok {
			return
		}
		v, isDur := flagNumber(f)
		if !l.contains(v) {
			err = usagef("%s %s: must be %s", flagLabel(f), f.Value.String(), l.describe(isDur))
		}
	})
	return err
}

// flagNumber is f's value as a float, in seconds for a duration.
func flagNumber(f *pflag.Flag) (float64, bool) {
	if f.Value.Type() == "duration" {
		d, _ := time.ParseDuration(f.Value.String())
		return d.Seconds(), true
	}
	v, err := strconv.ParseFloat(f.Value.String(), 64)
	if err != nil {
		return math.NaN(), false
	}
	return v, false
}

func (l limit) contains(v float64) bool {
	if math.IsNaN(v) || v > l.max || v < l.min {
		return false
	}
	return !(l.openMin && v == l.min)
}

// describe says the range in words: "at least 1", "from 0 to 1",
// "above 0 and at most 24h0m0s".
func (l limit) describe(isDur bool) string {
	num := func(v float64) string {
		if isDur {
			return time.Duration(v * float64(time.Second)).String()
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	unbounded := l.max >= 1e18 // the type's own limit: nothing worth saying
	switch {
	case unbounded && l.openMin:
		return "above " + num(l.min)
	case unbounded:
		return num(l.min) + " or more"
	case l.openMin:
		return fmt.Sprintf("above %s and at most %s", num(l.min), num(l.max))
	case l.min == 0 && l.max == 1:
		return "from 0 to 1"
	default:
		return fmt.Sprintf("from %s to %s", num(l.min), num(l.max))
	}
}

// flagLabel names f as its errors do: -c/--concurrency, or --url.
func flagLabel(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand + "/--" + f.Name
	}
	return "--" + f.Name
}

// flagParseError puts pflag's parse errors in plain words: which flag, what
// it wants, and for an unknown flag the closest known one.
func flagParseError(fs *pflag.FlagSet, err error) error {
	var inv *pflag.InvalidValueError
	var unknown *pflag.NotExistError
	switch {
	case errors.As(err, &inv):
		f := inv.GetFlag()
		want, ok := numericTypes[f.Value.Type()]
		if !ok {
			return usagef("%s %q: %v", flagLabel(f), inv.GetValue(), errors.Unwrap(err))
		}
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return usagef("%s %s: out of range", flagLabel(f), inv.GetValue())
		}
		return usagef("%s %q: want %s", flagLabel(f), inv.GetValue(), want)
	case errors.As(err, &unknown):
		if name := unknown.GetSpecifiedName(); name != "" {
			if near := closestFlag(fs, name); near != "" {
				return usagef("unknown flag --%s (did you mean --%s?)", name, near)
			}
		}
	}
	return usagef("%v", err)
}

// closestFlag is the flag name nearest to name by edit distance, or the
// one it begins, if either is near enough to be the one meant.
func closestFlag(fs *pflag.FlagSet, name string) string {
	best, bestD := "", max(2, len(name)/3)+1
	fs.VisitAll(func(f *pflag.Flag) {
		d := editDistance(name, f.Name)
		if len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			d = 1 // --conc for --concurrency
		}
		if d < bestD && !f.Hidden {
			best, bestD = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
