package results

import (
	"fmt"
	"reflect"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpbench/mcpbench/bench"
	"github.com/mcpbench/mcpbench/sweep"
)

// PointOf is the report form of a point the generator measured.
func PointOf(m bench.Point) Point { return convert[Point](m) }

// PointsOf is the report form of a sweep's points.
func PointsOf(ms []bench.Point) []Point { return convert[[]Point](ms) }

// OperationsOf is the report form of a workload's operations.
func OperationsOf(ops []bench.Operation) []Operation { return convert[[]Operation](ops) }

// measured is p as the generator's plain value, for the analysis in sweep,
// which works on measurements (it ranks below this package).
func (p *Point) measured() bench.Point { return convert[bench.Point](*p) }

// MeetsSLO says whether p met slo: feasible, and for an open-loop point
// also sustained (it delivered what was offered).
func (p *Point) MeetsSLO(slo sweep.SLO) bool {
	m := p.measured()
	if p.Rate != nil {
		return slo.Sustained(m)
	}
	return slo.Feasible(m)
}

// convert is v in its other form, R: a report type from a measurement or
// the reverse (see mirror).
func convert[R any](v any) R {
	var r R
	mirror(reflect.ValueOf(&r).Elem(), reflect.ValueOf(v))
	return r
}

// viaMeasured runs f, a computation of the generator's, on r's plain form
// M and keeps what it computed in r: merged reports recompute their
// figures exactly as the generator computed them.
func viaMeasured[M, R any](r *R, f func(*M)) {
	m := convert[M](*r)
	f(&m)
	*r = convert[R](m)
}

// mirror copies src into dst, two types of the same shape: the same fields
// in the same order with the same names, which differ only in their JSON
// names and in which package declared them (a bench measurement type and
// its report type here). Go converts such structs directly when their
// fields have identical types; mirror walks down to where that holds, so
// one copy serves every type and both directions, and a field added on one
// side only fails loudly (TestReportSchemaIsStable covers every type).
// Values are shared as an assignment shares them, nil stays nil.
func mirror(dst, src reflect.Value) {
	dt, st := dst.Type(), src.Type()
	switch {
	case dt == st:
		dst.Set(src)
	case st.Kind() == dt.Kind() && st.Kind() != reflect.Pointer && st.ConvertibleTo(dt):
		dst.Set(src.Convert(dt))
	case st.Kind() == reflect.Pointer && dt.Kind() == reflect.Pointer:
		if !src.IsNil() {
			dst.Set(reflect.New(dt.Elem()))
			mirror(dst.Elem(), src.Elem())
		}
	case st.Kind() == reflect.Slice && dt.Kind() == reflect.Slice:
		if !src.IsNil() {
			dst.Set(reflect.MakeSlice(dt, src.Len(), src.Len()))
			for i := range src.Len() {
				mirror(dst.Index(i), src.Index(i))
			}
		}
	case st.Kind() == reflect.Struct && dt.Kind() == reflect.Struct && st.NumField() == dt.NumField():
		for i := range st.NumField() {
			if st.Field(i).Name != dt.Field(i).Name {
				panic(fmt.Sprintf("results: %v field %d is %s, %v has %s", st, i, st.Field(i).Name, dt, dt.Field(i).Name))
			}
			mirror(dst.Field(i), src.Field(i))
		}
	default:
		panic(fmt.Sprintf("results: %v and %v do not have the same shape", st, dt))
	}
}

// The figures of a report value are computed as the generator computes
// them, on its plain form: merge recomputes them from merged histograms.

// FillPercentiles sets the percentiles, min, max and mean from h
// (microseconds).
func (l *Latency) FillPercentiles(h *hdrhistogram.Histogram) {
	viaMeasured(l, func(m *bench.Latency) { m.FillPercentiles(h) })
}

// Fill sets the figures from h (microseconds) and keeps h encoded.
func (u *Uncorrected) Fill(h *hdrhistogram.Histogram) {
	viaMeasured(u, func(m *bench.Uncorrected) { m.Fill(h) })
}

// Fill sets the figures from h (microseconds) and keeps h encoded.
func (l *ScheduleLag) Fill(h *hdrhistogram.Histogram) {
	viaMeasured(l, func(m *bench.ScheduleLag) { m.Fill(h) })
}

// Fill sets the figures from h (microseconds) and keeps h encoded; an
// empty h leaves them zero.
func (t *SessionTimes) Fill(h *hdrhistogram.Histogram) {
	viaMeasured(t, func(m *bench.SessionTimes) { m.Fill(h) })
}

// NewStage summarises h (microseconds); nil when no request reached the
// stage.
func NewStage(h *hdrhistogram.Histogram) *Stage { return convert[*Stage](bench.NewStage(h)) }

// Add sums o's counts (not its durations or means) into f.
func (f *SessionFigures) Add(o *SessionFigures) {
	other := convert[bench.SessionFigures](*o)
	viaMeasured(f, func(m *bench.SessionFigures) { m.Add(&other) })
}

// Means sets the per-session means and the rate from the totals, over a
// window of elapsedS seconds.
func (f *SessionFigures) Means(elapsedS float64) {
	viaMeasured(f, func(m *bench.SessionFigures) { m.Means(elapsedS) })
}
