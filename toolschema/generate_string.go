package toolschema

import (
	"errors"
	"fmt"
	"strings"
)

func (st *genState) genString(m map[string]any, ptr string) (any, error) {
	minL, _ := intKw(m, "minLength")
	maxL, hasMax := intKw(m, "maxLength")
	if !hasMax {
		maxL = -1
	}
	if hasMax && minL > maxL {
		return nil, st.schemaErr("minLength", pointerJoin(ptr, "minLength"),
			fmt.Sprintf("minLength %d is above maxLength %d", minL, maxL))
	}
	if minL > maxGenLength {
		return nil, st.schemaErr("minLength", pointerJoin(ptr, "minLength"),
			fmt.Sprintf("minLength %d is too long to generate", minL))
	}
	st.work += minL
	if st.work > maxWork {
		return nil, st.schemaErr("minLength", pointerJoin(ptr, "minLength"), fmt.Sprintf("a value would exceed %d nodes and bytes", maxWork))
	}
	if p, ok := m["pattern"].(string); ok {
		rg, err := st.regex(p)
		if err != nil {
			return nil, st.schemaErrWrap("pattern", pointerJoin(ptr, "pattern"), "cannot generate from the pattern", err)
		}
		s, err := rg.generate(st.rng, minL, maxL)
		if errors.Is(err, errNoMatch) {
			return nil, st.schemaErrWrap("pattern", pointerJoin(ptr, "pattern"), "cannot generate from the pattern", err)
		}
		return s, err
	}
	if f, ok := m["format"].(string); ok {
		if s, ok := genFormat(st.rng, f); ok {
			return s, nil
		}
	}
	hi := maxL
	if hi < 0 || hi > minL+16 {
		hi = minL + 16
	}
	lo := max(minL, min(4, hi))
	n := lo + st.rng.IntN(hi-lo+1)
	var b strings.Builder
	b.WriteString(words[st.rng.IntN(len(words))])
	if b.Len() < n {
		b.WriteByte('-')
	}
	for b.Len() < n {
		b.WriteByte(alnum[st.rng.IntN(len(alnum))])
	}
	return b.String()[:n], nil
}

func (st *genState) regex(p string) (*regexGen, error) {
	if rg, ok := st.regexes[p]; ok {
		return rg, nil
	}
	rg, err := newRegexGen(p)
	if err != nil {
		return nil, err
	}
	st.regexes[p] = rg
	return rg, nil
}
