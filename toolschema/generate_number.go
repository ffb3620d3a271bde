package toolschema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// numBounds reads minimum/maximum and both spellings of the exclusive
// bounds: numbers (2019-09 and later, draft-06/07) and booleans (draft-04).
type numBounds struct {
	lo, hi       float64
	hasLo, hasHi bool
	exLo, exHi   bool
	loKw, hiKw   string
	loRaw, hiRaw any
}

func readBounds(m map[string]any) numBounds {
	var b numBounds
	if v, ok := num(m["minimum"]); ok {
		b.lo, b.hasLo, b.loKw, b.loRaw = v, true, "minimum", m["minimum"]
	}
	if v, ok := num(m["maximum"]); ok {
		b.hi, b.hasHi, b.hiKw, b.hiRaw = v, true, "maximum", m["maximum"]
	}
	switch x := m["exclusiveMinimum"].(type) {
	case bool:
		b.exLo = x && b.hasLo
	default:
		if v, ok := num(x); ok && (!b.hasLo || v >= b.lo) {
			b.lo, b.hasLo, b.exLo, b.loKw, b.loRaw = v, true, true, "exclusiveMinimum", x
		}
	}
	switch x := m["exclusiveMaximum"].(type) {
	case bool:
		b.exHi = x && b.hasHi
	default:
		if v, ok := num(x); ok && (!b.hasHi || v <= b.hi) {
			b.hi, b.hasHi, b.exHi, b.hiKw, b.hiRaw = v, true, true, "exclusiveMaximum", x
		}
	}
	return b
}

// intRange is the inclusive integer range a schema allows, with a default
// width where a side is open.
func (st *genState) intRange(m map[string]any, ptr string) (lo, hi int64, err error) {
	b := readBounds(m)
	flo, fhi := b.lo, b.hi
	if b.hasLo {
		if b.exLo {
			flo = math.Floor(flo) + 1
		} else {
			flo = math.Ceil(flo)
		}
	}
	if b.hasHi {
		if b.exHi {
			fhi = math.Ceil(fhi) - 1
		} else {
			fhi = math.Floor(fhi)
		}
	}
	switch {
	case !b.hasLo && !b.hasHi:
		flo, fhi = 0, defaultSpan
	case !b.hasLo:
		flo = math.Min(0, fhi-defaultSpan)
		if fhi < 0 {
			flo = fhi - defaultSpan
		}
	case !b.hasHi:
		fhi = flo + defaultSpan
	}
	flo = math.Max(flo, -maxSafeInt)
	fhi = math.Min(fhi, maxSafeInt)
	if flo > fhi {
		kw := b.loKw
		if kw == "" {
			kw = b.hiKw
		}
		return 0, 0, st.schemaErr(kw, pointerJoin(ptr, kw),
			fmt.Sprintf("no integer lies between %s %v and %s %v", b.loKw, b.lo, b.hiKw, b.hi))
	}
	return int64(flo), int64(fhi), nil
}

func (st *genState) genInteger(m map[string]any, ptr string) (any, error) {
	lo, hi, err := st.intRange(m, ptr)
	if err != nil {
		return nil, err
	}
	step := int64(1)
	if mr, ok := ratOf(m["multipleOf"]); ok && mr.Sign() > 0 {
		// An integer is a multiple of p/q (in lowest terms) exactly when p
		// divides it.
		if !mr.Num().IsInt64() {
			return nil, st.schemaErr("multipleOf", pointerJoin(ptr, "multipleOf"), "multipleOf is too large")
		}
		step = mr.Num().Int64()
	}
	kLo := ceilDiv(lo, step)
	kHi := floorDiv(hi, step)
	if kLo > kHi {
		return nil, st.schemaErr("multipleOf", pointerJoin(ptr, "multipleOf"),
			fmt.Sprintf("no multiple of %d lies in [%d, %d]", step, lo, hi))
	}
	k := kLo + st.rng.Int64N(kHi-kLo+1)
	return json.Number(strconv.FormatInt(k*step, 10)), nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

func (st *genState) genNumber(m map[string]any, ptr string) (any, error) {
	b := readBounds(m)
	lo, hi := b.lo, b.hi
	switch {
	case !b.hasLo && !b.hasHi:
		lo, hi = 0, defaultSpan
	case !b.hasLo:
		lo = math.Min(0, hi-defaultSpan)
	case !b.hasHi:
		hi = lo + defaultSpan
	}
	if lo > hi || (lo == hi && (b.exLo || b.exHi)) {
		return nil, st.schemaErr(b.loKw, pointerJoin(ptr, b.loKw),
			fmt.Sprintf("no number lies between %s %v and %s %v", b.loKw, b.lo, b.hiKw, b.hi))
	}
	if mr, ok := ratOf(m["multipleOf"]); ok && mr.Sign() > 0 {
		return st.multipleInRange(mr, lo, hi, b.exLo, b.exHi, ptr)
	}
	v := lo + st.rng.Float64()*(hi-lo)
	if r := math.Round(v*100) / 100; hi-lo >= 1 && r >= lo && r <= hi {
		v = r // two decimals read like real input
	}
	if (b.exLo && v <= lo) || (b.exHi && v >= hi) {
		v = lo + (hi-lo)/2
	}
	return json.Number(strconv.FormatFloat(v, 'g', -1, 64)), nil
}

// multipleInRange picks k*m within the bounds, computed exactly so that the
// validator's rational multipleOf check agrees.
func (st *genState) multipleInRange(m *big.Rat, lo, hi float64, exLo, exHi bool, ptr string) (any, error) {
	mf, _ := m.Float64()
	kLo := math.Ceil(lo / mf)
	kHi := math.Floor(hi / mf)
	if exLo && kLo*mf <= lo {
		kLo++
	}
	if exHi && kHi*mf >= hi {
		kHi--
	}
	if kLo > kHi || math.Abs(kLo) > maxSafeInt || math.Abs(kHi) > maxSafeInt {
		return nil, st.schemaErr("multipleOf", pointerJoin(ptr, "multipleOf"),
			fmt.Sprintf("no multiple of %s lies in the range [%v, %v]", m.RatString(), lo, hi))
	}
	k := int64(kLo) + st.rng.Int64N(int64(kHi-kLo)+1)
	v := new(big.Rat).Mul(m, new(big.Rat).SetInt64(k))
	return json.Number(ratDecimal(v)), nil
}

// ratDecimal writes a rational with a terminating decimal expansion exactly,
// and anything else to 12 places.
func ratDecimal(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	x := new(big.Rat).Set(r)
	ten := big.NewRat(10, 1)
	for d := 1; d <= 20; d++ {
		x.Mul(x, ten)
		if x.IsInt() {
			return r.FloatString(d)
		}
	}
	return r.FloatString(12)
}
