package hostile

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// checkT is what the checks use of a test: a *testing.T, or a tally that
// runCase asks whether a try passed.
type checkT interface {
	Helper()
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Logf(format string, args ...any)
}

// tally is a checkT that keeps the first failure; Fatal ends the checks.
type tally struct {
	failed bool
	first  string
}

func (*tally) Helper()                             {}
func (*tally) Logf(string, ...any)                 {}
func (c *tally) Errorf(format string, args ...any) { c.fail(fmt.Sprintf(format, args...)) }
func (c *tally) Fatal(args ...any) {
	c.fail(fmt.Sprint(args...))
	panic(c)
}

func (c *tally) fail(s string) {
	if !c.failed {
		c.failed, c.first = true, s
	}
}

// passes says whether the case's try passes its checks, and else the
// first failure.
func passes(r *result) (ok bool, first string) {
	c := &tally{}
	func() {
		defer func() {
			if v := recover(); v != nil && v != c {
				panic(v)
			}
		}()
		checkCase(c, r)
	}()
	return !c.failed, c.first
}

// checkCase holds one case's runs to the suite's rules.
func checkCase(t checkT, r *result) {
	for _, why := range r.starved {
		t.Logf("run again: %s", why)
	}
	if r.setupErr != nil {
		t.Fatal(r.setupErr)
	}
	exp := r.exp
	checkProcess(t, "run", r.run, r.runBound)
	checkProcess(t, "sweep", r.sweep, r.swBound)
	http := r.netRun.args != nil
	if http {
		checkProcess(t, "net/http run", r.netRun, r.runBound)
	}
	if exp.dialFails {
		for _, o := range []outcome{r.run, r.sweep, r.netRun} {
			if o.args == nil {
				continue
			}
			line := strings.TrimSpace(string(o.stderr))
			if o.code != 3 || strings.Count(line, "\n") > 0 || !exp.example.MatchString(line) {
				t.Errorf("%s: exit %d, stderr %q; want exit 3 and one line matching %s", o.args[0], o.code, line, exp.example)
			}
		}
	} else {
		wantCode := 0
		if exp.kind != "" {
			wantCode = 1 // errors above --max-error-rate 0
		}
		if r.run.code != wantCode {
			t.Errorf("run: exit %d, want %d; stderr %s", r.run.code, wantCode, clip(r.run.stderr))
		}
		if r.sweep.code != 0 {
			t.Errorf("sweep: exit %d, want 0 (errors at a point are data); stderr %s", r.sweep.code, clip(r.sweep.stderr))
		}
		checkReports(t, r)
		checkPoint(t, "run", exp, r.runRep, int64(or(exp.n, runN)))
		if http {
			if r.netRun.code != wantCode {
				t.Errorf("net/http run: exit %d, want %d; stderr %s", r.netRun.code, wantCode, clip(r.netRun.stderr))
			}
			checkPoint(t, "net/http run", exp, r.netRep, int64(or(exp.n, runN)))
		}
		if len(r.swReps) != len(sweepLevels) {
			t.Errorf("sweep: %d points, want %d", len(r.swReps), len(sweepLevels))
		}
		for i, p := range r.swReps {
			checkPoint(t, fmt.Sprintf("sweep point %d", i+1), exp, p, int64(or(exp.sweepN, sweepN)))
		}
	}
	if exp.maxInits > 0 && r.inits > exp.maxInits {
		t.Errorf("run: %d sessions opened on the server, at most %d allowed: the renewals were not cut off", r.inits, exp.maxInits)
	}
	for _, pid := range r.pids {
		if !processGone(pid) {
			t.Errorf("stdio server process %d is still running after mcpbench exited", pid)
		}
	}
	places := map[string][]byte{"junit": r.junit}
	for name, o := range map[string]outcome{"run": r.run, "sweep": r.sweep, "net/http run": r.netRun} {
		places[name+" stdout"], places[name+" stderr"] = o.stdout, o.stderr
	}
	for f, b := range r.files {
		places[f] = b
	}
	if where := leaks(places); len(where) > 0 {
		t.Errorf("the bearer token (or a part of it) is in %v", where)
	}
}

// checkProcess: the process ended by itself, within its bound and its
// memory ceiling.
func checkProcess(t checkT, what string, o outcome, limit time.Duration) {
	t.Helper()
	for _, why := range o.starved {
		t.Logf("%s: run again, %s", what, why)
	}
	if o.killed {
		t.Errorf("%s: still running after %s; killed", what, o.elapsed.Round(time.Second))
	} else if o.elapsed > limit {
		t.Errorf("%s: took %s, bound %s", what, o.elapsed.Round(time.Millisecond), limit)
	}
	if o.peakRSS > rssCeiling {
		t.Errorf("%s: peak RSS %d MiB, ceiling %d MiB", what, o.peakRSS>>20, rssCeiling>>20)
	}
	if strings.Contains(string(o.stderr), "panic:") || strings.Contains(string(o.stderr), "goroutine ") {
		t.Errorf("%s: crashed: %s", what, clip(o.stderr))
	}
}

// checkReports: every report asked for was written, and the JSON ones
// parse.
func checkReports(t checkT, r *result) {
	t.Helper()
	for _, f := range []string{"run.json", "run.md", "sweep.json", "sweep.md", "sweep.svg", "run.html", "sweep.html"} {
		b, ok := r.files[f]
		switch {
		case !ok:
			t.Errorf("%s was not written", f)
		case strings.HasSuffix(f, ".json") && !json.Valid(b):
			t.Errorf("%s is not valid JSON: %s", f, clip(b))
		}
	}
}

// checkPoint: every request was counted, each failure in the case's one
// kind, with an example that says what the server did.
func checkPoint(t checkT, what string, exp expect, p pointReport, n int64) {
	t.Helper()
	if p.Requests != n || p.OK+p.Errors != n {
		t.Errorf("%s: requests %d (ok %d, errors %d), want %d", what, p.Requests, p.OK, p.Errors, n)
	}
	for k, c := range p.ErrorsByKind {
		if k != exp.kind {
			t.Errorf("%s: %d errors of kind %s (%s), want only %q", what, c, k, p.ErrorExamples[k], exp.kind)
		}
	}
	if exp.kind == "" {
		return
	}
	got := p.ErrorsByKind[exp.kind]
	if got == 0 && !exp.mayNot || !exp.okToo && got != n {
		t.Errorf("%s: %d of %d requests counted as %s", what, got, n, exp.kind)
	}
	if ex := p.ErrorExamples[exp.kind]; got > 0 && !exp.example.MatchString(ex) {
		t.Errorf("%s: the %s example %q does not say what the server did (want %s)", what, exp.kind, ex, exp.example)
	}
}

func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

// lastLine is the last line of b that has text.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// TestPassesTallies: the pre-check that decides a retry sees a failure,
// and one that ends the checks (Fatal) ends them there.
func TestPassesTallies(t *testing.T) {
	ok, why := passes(&result{setupErr: errors.New("no server for case")})
	if ok || why != "no server for case" {
		t.Fatalf("passes = %v, %q; want false and the set-up error", ok, why)
	}
}
