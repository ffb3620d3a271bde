package main

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// numericFlags calls fn for every numeric flag of every command.
func numericFlags(fn func(cmd string, f *pflag.Flag)) {
	for _, c := range commands() {
		if c.flags == nil {
			continue
		}
		c.flags().VisitAll(func(f *pflag.Flag) {
			if _, ok := numericTypes[f.Value.Type()]; ok {
				fn(c.name, f)
			}
		})
	}
}

// TestEveryNumericFlagHasARange: a numeric flag added without a range
// would take 0, negative and absurd values silently.
func TestEveryNumericFlagHasARange(t *testing.T) {
	n := 0
	numericFlags(func(cmd string, f *pflag.Flag) {
		n++
		if _, ok := flagLimit(f); !ok {
			t.Errorf("%s --%s (%s) has no range: give its flagDecl an rng", cmd, f.Name, f.Value.Type())
		}
	})
	if n < 40 {
		t.Fatalf("only %d numeric flags found", n)
	}
}

// badValues are values of f's type outside its range: 0 when 0 is not
// allowed, a negative one, one past the top, and for numbers NaN and Inf.
func badValues(f *pflag.Flag) []string {
	l, _ := flagLimit(f)
	isDur := f.Value.Type() == "duration"
	text := func(v float64) string {
		switch {
		case isDur:
			return time.Duration(v * float64(time.Second)).String()
		case f.Value.Type() == "float64":
			return strconv.FormatFloat(v, 'g', -1, 64)
		default:
			return strconv.FormatFloat(v, 'f', 0, 64)
		}
	}
	var out []string
	if !l.contains(0) {
		out = append(out, text(0))
	}
	if !l.contains(-1) || f.Value.Type() == "uint64" {
		out = append(out, text(-1))
	}
	switch {
	case isDur && l.max < maxRunTime.Seconds()*2:
		out = append(out, text(l.max*2))
	case isDur:
		out = append(out, "9999999999h") // past what a duration holds
	case math.IsInf(l.max, 1) || l.max >= 1e18:
		out = append(out, "99999999999999999999999") // past what the type holds
	default:
		out = append(out, text(l.max*10+1))
	}
	if f.Value.Type() == "float64" {
		out = append(out, "NaN", "Inf")
	}
	return out
}

// TestNumericFlagsRefuseBadValues gives every numeric flag of every command
// its bad values: each is refused in one line naming the flag, exit 2.
func TestNumericFlagsRefuseBadValues(t *testing.T) {
	numericFlags(func(cmd string, f *pflag.Flag) {
		for _, v := range badValues(f) {
			var out, errb bytes.Buffer
			e := env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
			code := dispatch([]string{cmd, "--" + f.Name + "=" + v}, e)
			msg := errb.String()
			if code != exitUsage || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "--"+f.Name) || out.Len() > 0 {
				t.Errorf("%s --%s=%s: exit %d, stderr %q, stdout %q; want exit 2 and one line naming the flag", cmd, f.Name, v, code, msg, out.String())
			}
		}
	})
}

func TestLimitWords(t *testing.T) {
	for _, tt := range []struct {
		l     *limit
		isDur bool
		want  string
	}{
		{atLeastOne(10), false, "from 1 to 10"},
		{above0(5), false, "above 0 and at most 5"},
		{durationUpTo(time.Hour), true, "above 0s and at most 1h0m0s"},
		{fraction, false, "from 0 to 1"},
		{zeroOrMore(math.MaxInt64), false, "0 or more"},
	} {
		if got := tt.l.describe(tt.isDur); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.l, got, tt.want)
		}
	}
	if !anyValue.contains(-1e300) || anyValue.contains(math.NaN()) || above0(1).contains(0) || !above0(1).contains(1) {
		t.Error("contains")
	}
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.Int("concurrency", 1, "")
	fs.Int("total", 1, "")
	for typed, want := range map[string]string{"conc": "concurrency", "concurency": "concurrency", "totl": "total", "zzzzzz": ""} {
		if got := closestFlag(fs, typed); got != want {
			t.Errorf("closest to %q: %q, want %q", typed, got, want)
		}
	}
}
