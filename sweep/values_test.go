package sweep

import (
	"slices"
	"strings"
	"testing"
)

func TestParseConcurrencyValues(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr string
	}{
		{"1,2,4,8", []int{1, 2, 4, 8}, ""},
		{" 8, 4 ,4,1,2 ", []int{1, 2, 4, 8}, ""},
		{"40,80,120,160,200", []int{40, 80, 120, 160, 200}, ""},
		{"1,,2,", []int{1, 2}, ""},
		{"", nil, "comma-separated"},
		{" , ", nil, "comma-separated"},
		{"1,0", nil, `"0" is not a positive whole number`},
		{"1,-2", nil, `"-2" is not a positive whole number`},
		{"1,2.5", nil, `"2.5" is not a positive whole number`},
		{"a", nil, `"a" is not a positive whole number`},
		{"1,2000000", nil, "above the 1000000 concurrency limit"},
	}
	for _, tt := range tests {
		got, err := ParseConcurrencyValues(tt.in)
		checkParse(t, tt.in, got, err, tt.want, tt.wantErr, "concurrency values")
	}
}

func TestParseConcurrencyRange(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr string
	}{
		{"1:32", []int{1, 2, 4, 8, 16, 32}, ""},
		{"1:32:x2", []int{1, 2, 4, 8, 16, 32}, ""},
		{"1:30:x2", []int{1, 2, 4, 8, 16, 30}, ""}, // TO always measured
		{"4:20:+4", []int{4, 8, 12, 16, 20}, ""},
		{"4:18:+4", []int{4, 8, 12, 16, 18}, ""},
		{"1:10:x1.5", []int{1, 2, 3, 5, 8, 10}, ""}, // 1.5 and 2.25 both round to 2
		{"5:5", []int{5}, ""},
		{"1:8:X2", []int{1, 2, 4, 8}, ""},
		{"8:1", nil, "FROM (8) is above TO (1)"},
		{"1", nil, "want FROM:TO"},
		{"1:2:3:4", nil, "want FROM:TO"},
		{"1:8:2", nil, "want FROM:TO"},
		{"1:8:x", nil, "want FROM:TO"},
		{"1:8:x1", nil, "factor x1 must be above 1"},
		{"1:8:+0", nil, "step +0 must be positive"},
		{"1:8:+1.5", nil, "must be a whole number"},
		{"0:8", nil, `"0" is not a positive whole number`},
		{"1:1000000:+1", nil, "more than 1000 points"},
		{"1:8:xNaN", nil, "want FROM:TO"},
		{"1:9223372036854775807", nil, "concurrency limit"},
	}
	for _, tt := range tests {
		got, err := ParseConcurrencyRange(tt.in)
		checkParse(t, tt.in, got, err, tt.want, tt.wantErr, "concurrency range")
	}
}

func TestParseRateValuesAndRange(t *testing.T) {
	vals := []struct {
		in      string
		want    []float64
		wantErr string
	}{
		{"100,200,400", []float64{100, 200, 400}, ""},
		{"400,100,100,0.5", []float64{0.5, 100, 400}, ""},
		{"100,0", nil, `"0" is not a positive number`},
		{"100,inf", nil, `"inf" is not a positive number`},
		{"x", nil, "not a positive number"},
	}
	for _, tt := range vals {
		got, err := ParseRateValues(tt.in)
		checkParse(t, tt.in, got, err, tt.want, tt.wantErr, "rate values")
	}
	ranges := []struct {
		in      string
		want    []float64
		wantErr string
	}{
		{"100:800", []float64{100, 200, 400, 800}, ""},
		{"100:1000:x2", []float64{100, 200, 400, 800, 1000}, ""},
		{"0.1:0.5:+0.1", []float64{0.1, 0.2, 0.3, 0.4, 0.5}, ""}, // no float drift
		{"10:40:x1.5", []float64{10, 15, 22.5, 33.75, 40}, ""},
		{"50:10", nil, "FROM (50) is above TO (10)"},
		{"10:50:-5", nil, "want FROM:TO"},
	}
	for _, tt := range ranges {
		got, err := ParseRateRange(tt.in)
		checkParse(t, tt.in, got, err, tt.want, tt.wantErr, "rate range")
	}
}

func checkParse[T comparable](t *testing.T, in string, got []T, err error, want []T, wantErr, of string) {
	t.Helper()
	if wantErr != "" {
		if err == nil {
			t.Errorf("%q: got %v, want error containing %q", in, got, wantErr)
			return
		}
		msg := err.Error()
		if !strings.Contains(msg, wantErr) || !strings.HasPrefix(msg, of) || strings.Contains(msg, "\n") {
			t.Errorf("%q: error %q, want one line starting %q containing %q", in, msg, of, wantErr)
		}
		return
	}
	if err != nil {
		t.Errorf("%q: unexpected error %v", in, err)
		return
	}
	if !slices.Equal(got, want) {
		t.Errorf("%q: got %v, want %v", in, got, want)
	}
}

// FuzzParseRange checks that no input panics and every accepted range obeys
// the promises: sorted, unique, positive, bounded in count and size.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"1:32", "1:30:x1.5", "4:20:+4", "0.1:0.5:+0.1", "1:8:x", "8:1", "1:1e9:x1.0001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if c, err := ParseConcurrencyRange(s); err == nil {
			if len(c) == 0 || len(c) > MaxPoints || c[0] <= 0 || c[len(c)-1] > MaxConcurrency || !slices.IsSorted(c) || len(slices.Compact(slices.Clone(c))) != len(c) {
				t.Errorf("%q: bad concurrency range %v", s, c)
			}
		}
		if r, err := ParseRateRange(s); err == nil {
			if len(r) == 0 || len(r) > MaxPoints || !(r[0] > 0) || !slices.IsSorted(r) {
				t.Errorf("%q: bad rate range %v", s, r)
			}
		}
		if c, err := ParseConcurrencyValues(s); err == nil && (len(c) == 0 || c[0] <= 0 || !slices.IsSorted(c)) {
			t.Errorf("%q: bad values %v", s, c)
		}
	})
}
