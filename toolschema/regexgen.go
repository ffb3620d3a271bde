package toolschema

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"unicode"
)

// Strings for "pattern" are produced by walking the regexp/syntax parse tree
// rather than with github.com/lucasjones/reggen: reggen rewrites the shared
// parse tree while generating (it clamps repeat maxima in place), prints to
// stderr from library code, cannot aim at a length window, and has had no
// release or go.mod since 2020. The walk below is small and owns none of that.

const (
	// repeatSpan bounds how far *, + and {n,} run past their minimum.
	repeatSpan = 8
	alnum      = "abcdefghijklmnopqrstuvwxyz0123456789"
)

var errNoMatch = errors.New("pattern matches nothing")

// regexGen generates strings matching one pattern.
type regexGen struct {
	re            *syntax.Regexp
	anchoredStart bool
	anchoredEnd   bool
}

func newRegexGen(pattern string) (*regexGen, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("parsing pattern %q: %w", pattern, err)
	}
	re = re.Simplify()
	return &regexGen{re: re, anchoredStart: anchored(re, true), anchoredEnd: anchored(re, false)}, nil
}

// anchored reports whether every match must start (or end) at the edge of
// the text. JSON Schema patterns are unanchored searches, so an unanchored
// side is free for padding.
func anchored(re *syntax.Regexp, start bool) bool {
	switch re.Op {
	case syntax.OpBeginText:
		return start
	case syntax.OpEndText:
		return !start
	case syntax.OpBeginLine:
		return start
	case syntax.OpEndLine:
		return !start
	case syntax.OpCapture:
		return anchored(re.Sub[0], start)
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return false
		}
		if start {
			return anchored(re.Sub[0], start)
		}
		return anchored(re.Sub[len(re.Sub)-1], start)
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if !anchored(s, start) {
				return false
			}
		}
		return len(re.Sub) > 0
	}
	return false
}

// generate returns a string matching the pattern whose length in runes lies
// in [minLen, maxLen] (maxLen < 0: unbounded), or an error after a bounded
// number of tries.
func (g *regexGen) generate(rng *rand.Rand, minLen, maxLen int) (string, error) {
	var last string
	for try := 0; try < 24; try++ {
		span := repeatSpan
		if try >= 8 {
			span = try % 4 // later tries aim short
		}
		var b strings.Builder
		if err := g.walk(rng, g.re, span, &b); err != nil {
			return "", err
		}
		s := b.String()
		n := len([]rune(s))
		// Pad free sides now and then for variety, and whenever too short.
		if !g.anchoredStart && rng.IntN(4) == 0 && (maxLen < 0 || n+1 <= maxLen) {
			s = randomAlnum(rng, 1) + s
			n++
		}
		for n < minLen && (!g.anchoredEnd || !g.anchoredStart) {
			if !g.anchoredEnd {
				s += randomAlnum(rng, 1)
			} else {
				s = randomAlnum(rng, 1) + s
			}
			n++
		}
		last = s
		if n >= minLen && (maxLen < 0 || n <= maxLen) {
			return s, nil
		}
	}
	return "", fmt.Errorf("no string of length %d..%d found for the pattern (last try %q)", minLen, maxLen, last)
}

func (g *regexGen) walk(rng *rand.Rand, re *syntax.Regexp, span int, b *strings.Builder) error {
	switch re.Op {
	case syntax.OpNoMatch:
		return errNoMatch
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		// Zero-width: nothing to emit. Word boundaries are left to the
		// validator, which rejects the rare miss.
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && rng.IntN(2) == 0 {
				r = unicode.SimpleFold(r)
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		b.WriteRune(pickFromClass(rng, re.Rune))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteByte(alnum[rng.IntN(len(alnum))])
	case syntax.OpCapture:
		return g.walk(rng, re.Sub[0], span, b)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := repeatBounds(re, span)
		n := lo
		if hi > lo {
			n += rng.IntN(hi - lo + 1)
		}
		for i := 0; i < n; i++ {
			if err := g.walk(rng, re.Sub[0], span, b); err != nil {
				return err
			}
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if err := g.walk(rng, s, span, b); err != nil {
				return err
			}
		}
	case syntax.OpAlternate:
		return g.walk(rng, re.Sub[rng.IntN(len(re.Sub))], span, b)
	default:
		return fmt.Errorf("unsupported regexp operator %v", re.Op)
	}
	return nil
}

func repeatBounds(re *syntax.Regexp, span int) (lo, hi int) {
	switch re.Op {
	case syntax.OpStar:
		return 0, span
	case syntax.OpPlus:
		return 1, 1 + span
	case syntax.OpQuest:
		return 0, 1
	}
	lo, hi = re.Min, re.Max
	if hi < 0 || hi > lo+span {
		hi = lo + span
	}
	return lo, hi
}

// pickFromClass picks a rune from a class given as [lo, hi] pairs. Printable
// ASCII is preferred so that generated arguments stay readable in logs.
func pickFromClass(rng *rand.Rand, ranges []rune) rune {
	var ascii []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := max(ranges[i], 0x21), min(ranges[i+1], 0x7e)
		for r := lo; r <= hi; r++ {
			ascii = append(ascii, r)
		}
	}
	if len(ascii) > 0 && rng.IntN(16) != 0 {
		return ascii[rng.IntN(len(ascii))]
	}
	// Otherwise a rune from a random range, staying clear of surrogates.
	for tries := 0; tries < 8; tries++ {
		i := 2 * rng.IntN(len(ranges)/2)
		lo, hi := ranges[i], ranges[i+1]
		if hi-lo > 0xff {
			hi = lo + 0xff
		}
		r := lo + rune(rng.IntN(int(hi-lo)+1))
		if r < 0xd800 || r > 0xdfff {
			return r
		}
	}
	if len(ascii) > 0 {
		return ascii[0]
	}
	return ranges[0]
}

func randomAlnum(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alnum[rng.IntN(len(alnum))]
	}
	return string(b)
}

// enumerate lists every string the pattern can match when it is anchored on
// both sides and its language is finite and at most limit strings long.
func (g *regexGen) enumerate(limit int) ([]string, bool) {
	if !g.anchoredStart || !g.anchoredEnd {
		return nil, false
	}
	out, ok := enumRegex(g.re, limit)
	if !ok {
		return nil, false
	}
	seen := map[string]bool{}
	uniq := out[:0]
	for _, s := range out {
		if !seen[s] {
			seen[s] = true
			uniq = append(uniq, s)
		}
	}
	return uniq, true
}

func enumRegex(re *syntax.Regexp, limit int) ([]string, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return []string{""}, true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		return []string{string(re.Rune)}, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if int(re.Rune[i+1]-re.Rune[i])+1+len(out) > limit {
				return nil, false
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				out = append(out, string(r))
			}
		}
		return out, true
	case syntax.OpCapture:
		return enumRegex(re.Sub[0], limit)
	case syntax.OpQuest:
		sub, ok := enumRegex(re.Sub[0], limit-1)
		if !ok {
			return nil, false
		}
		return append([]string{""}, sub...), true
	case syntax.OpRepeat:
		if re.Max < 0 {
			return nil, false
		}
		sub, ok := enumRegex(re.Sub[0], limit)
		if !ok {
			return nil, false
		}
		var out []string
		cur := []string{""}
		for i := 0; i <= re.Max; i++ {
			if i >= re.Min {
				out = append(out, cur...)
				if len(out) > limit {
					return nil, false
				}
			}
			if i == re.Max {
				break
			}
			if cur, ok = product(cur, sub, limit); !ok {
				return nil, false
			}
		}
		return out, true
	case syntax.OpConcat:
		cur := []string{""}
		for _, s := range re.Sub {
			sub, ok := enumRegex(s, limit)
			if !ok {
				return nil, false
			}
			if cur, ok = product(cur, sub, limit); !ok {
				return nil, false
			}
		}
		return cur, true
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			sub, ok := enumRegex(s, limit-len(out))
			if !ok {
				return nil, false
			}
			out = append(out, sub...)
		}
		return out, len(out) <= limit
	}
	return nil, false
}

func product(a, b []string, limit int) ([]string, bool) {
	if len(a)*len(b) > limit {
		return nil, false
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out, true
}
