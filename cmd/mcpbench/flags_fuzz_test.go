package main

import (
	"io"
	"strings"
	"testing"
)

// fuzzedFlags are the value-taking flags of run and sweep whose values are
// parsed (durations, numbers, ranges, shards, times, headers) rather than
// used as they are.
var fuzzedFlags = []string{
	"timeout", "timeout-secs", "max-response-bytes", "header", "secret-header",
	"concurrency", "rate", "max-in-flight", "total", "duration", "warmup", "ramp-up", "max-rate", "seed",
	"p95-slo-ms", "p99-slo-ms", "max-error-rate", "shard", "start-at",
	"concurrency-values", "concurrency-range", "rate-values", "rate-range", "cooldown", "require-concurrency",
}

// checkFlagErr: every flag error is one line, and a --header error never
// repeats what may be the secret part of the value.
func checkFlagErr(t *testing.T, name, value string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\r\n") {
		t.Fatalf("--%s=%q: error of more than one line: %q", name, value, msg)
	}
	if name == "header" {
		if i := strings.IndexAny(value, " \t:"); i >= 0 {
			if secret := strings.TrimSpace(value[i+1:]); len(secret) >= 4 && strings.Contains(msg, secret) {
				t.Fatalf("--header=%q: the error repeats the value: %q", value, msg)
			}
		}
	}
}

// FuzzFlagValues parses one flag value as run and as sweep do, through
// every check that runs before the first connection: nothing may panic,
// and a refusal is one clean line.
func FuzzFlagValues(f *testing.F) {
	for _, seed := range []struct {
		flag  uint8
		value string
	}{
		{0, "500ms"}, {0, "-1s"}, {0, "9223372036854775807ns"}, {0, "1e400s"}, {1, "NaN"}, {1, "1e300"},
		{2, "-5"}, {3, "Authorization Bearer s3cret-token"}, {3, "X-Api-Key: k\r\nInjected: 1"}, {3, ": v"},
		{5, "0"}, {6, "Inf"}, {9, "10m"}, {12, "-0.0"}, {17, "2/3"}, {17, "3/2"}, {18, "2026-01-02T03:04:05Z"},
		{18, "99999999999999999999"}, {19, "1,2,,4"}, {20, "1:64:x2"}, {21, "1e309,2"}, {22, "100:600:+100"},
	} {
		f.Add(seed.flag, seed.value)
	}
	f.Fuzz(func(t *testing.T, which uint8, value string) {
		name := fuzzedFlags[int(which)%len(fuzzedFlags)]
		arg := "--" + name + "=" + value
		e := env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}

		var rf runFlags
		fs := rf.flagSet()
		if fs.Lookup(name) != nil {
			err := fs.Parse([]string{"--url", "http://127.0.0.1:9/mcp", arg})
			if err == nil {
				err = checkFlags(fs)
			}
			checkFlagErr(t, name, value, err)
			if err == nil {
				err = rf.shard.splitRun(&rf.workload, fs.Changed("concurrency"))
				checkFlagErr(t, name, value, err)
				var cfg struct{ pool int }
				if err == nil {
					c, err := rf.benchConfig(fs.Changed("concurrency"))
					checkFlagErr(t, name, value, err)
					cfg.pool = c.Workers()
				}
				_, err = rf.target.options(&e, max(cfg.pool, 1))
				checkFlagErr(t, name, value, err)
			}
		}

		var sf sweepFlags
		fs = sf.flagSet()
		if fs.Lookup(name) == nil {
			return
		}
		err := fs.Parse([]string{"--url", "http://127.0.0.1:9/mcp", arg})
		if err == nil {
			err = checkFlags(fs)
		}
		checkFlagErr(t, name, value, err)
		if err != nil {
			return
		}
		if sf.concurrencyValues == "" && sf.concurrencyRange == "" && sf.rateValues == "" && sf.rateRange == "" {
			sf.concurrencyValues = "1,2"
		}
		cs, rs, err := sf.levels()
		checkFlagErr(t, name, value, err)
		if err == nil {
			_, _, err = sf.shard.splitSweep(&sf.workload, cs, rs, sf.refine)
			checkFlagErr(t, name, value, err)
		}
		_, err = sf.target.options(&e, 1)
		checkFlagErr(t, name, value, err)
	})
}
