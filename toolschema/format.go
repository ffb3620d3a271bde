package toolschema

import (
	"fmt"
	"math/rand/v2"
	"time"
)

var words = []string{"alpha", "bravo", "delta", "echo", "kilo", "lima", "nova", "orbit", "pixel", "quartz", "river", "sierra", "tango", "ultra", "vector", "zulu"}

// genFormat returns a value for a known "format", or ok=false when the
// format is unknown (the caller then generates a plain string).
func genFormat(rng *rand.Rand, format string) (string, bool) {
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	t := base.Add(time.Duration(rng.Int64N(int64(10 * 365 * 24 * time.Hour))))
	t = t.Truncate(time.Second)
	w := words[rng.IntN(len(words))]
	switch format {
	case "date-time":
		return t.Format(time.RFC3339), true
	case "date":
		return t.Format(time.DateOnly), true
	case "time":
		return t.Format("15:04:05Z"), true
	case "duration":
		return fmt.Sprintf("P%dDT%dH", 1+rng.IntN(30), rng.IntN(24)), true
	case "email", "idn-email":
		return fmt.Sprintf("%s.%d@example.com", w, rng.IntN(10000)), true
	case "hostname", "idn-hostname":
		return fmt.Sprintf("%s-%d.example.com", w, rng.IntN(1000)), true
	case "ipv4":
		return fmt.Sprintf("10.%d.%d.%d", rng.IntN(256), rng.IntN(256), 1+rng.IntN(254)), true
	case "ipv6":
		return fmt.Sprintf("fd00::%x:%x", rng.IntN(0xffff), 1+rng.IntN(0xfffe)), true
	case "uri", "iri", "url":
		return fmt.Sprintf("https://%s.example.com/%s/%d", w, words[rng.IntN(len(words))], rng.IntN(10000)), true
	case "uri-reference", "iri-reference":
		return fmt.Sprintf("/%s/%d", w, rng.IntN(10000)), true
	case "uri-template":
		return fmt.Sprintf("https://example.com/%s/{id}", w), true
	case "uuid":
		var b [16]byte
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), true
	case "json-pointer":
		return "/" + w + "/" + fmt.Sprint(rng.IntN(100)), true
	case "relative-json-pointer":
		return fmt.Sprint(rng.IntN(4)), true
	case "regex":
		return "^" + w + "[0-9]+$", true
	}
	return "", false
}
