package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The hostile-server matrix: every case is run with `run -c 8 -n 500
// --timeout 2s` and a short sweep, against the real binary. Set
// MCPBENCH_HOSTILE_OUT to write the table as Markdown (make hostile-doc).

const (
	requestTimeout = 2 * time.Second
	// patientTimeout is --timeout where no request should wait the
	// timeout out. make test runs this suite on the CPU the timed tests
	// leave, where a client held back for seconds read too little of an
	// endless answer in 2 s to cut it off by size, and counted a timeout
	// instead. Their bounds are still reckoned at requestTimeout.
	patientTimeout = 10 * time.Second
	runWorkers     = 8
	runN           = 500
	sweepN         = 100
	// maxResponse is the runs' --max-response-bytes.
	maxResponse = 1 << 20
	// rssCeiling is the most memory one mcpbench process may hold at its
	// peak, whatever the server sends.
	rssCeiling = 96 << 20
	// margin is what a run may take beyond its timeouts: start-up, the
	// requests' own time, writing reports.
	margin = 5 * time.Second
	// stdioShutdown is the longest a stdio server may take to go: stdin
	// closed, 2 s, SIGTERM, 2 s, SIGKILL.
	stdioShutdown = 4 * time.Second
	// parallelCases run at once: most of them wait on timeouts, not CPU.
	parallelCases = 6
)

var sweepLevels = []int{1, 4}

// result is what one case's runs did.
type result struct {
	exp      expect
	does     string
	run      outcome
	runBound time.Duration
	runRep   pointReport
	sweep    outcome
	swBound  time.Duration
	swReps   []pointReport
	// netRun is the run again on the net/http engine (HTTP cases only):
	// TLS, proxies and HTTP/2 go that way, the default engine the other.
	netRun outcome
	netRep pointReport
	// inits is how many sessions the run opened on the server.
	inits int64
	junit []byte
	files map[string][]byte // report files written, by name
	// starved says why earlier tries of the case were run again.
	starved  []string
	pids     []int // stdio server processes started
	setupErr error
}

// pointReport is what the suite reads of a run report or a sweep point.
type pointReport struct {
	Requests      int64             `json:"requests"`
	OK            int64             `json:"ok"`
	Errors        int64             `json:"errors"`
	ErrorsByKind  map[string]int64  `json:"errors_by_kind"`
	ErrorExamples map[string]string `json:"error_examples"`
}

func TestHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("the hostile-server suite takes a minute or two")
	}
	results := make([]*result, len(expectations))
	sem := make(chan struct{}, parallelCases)
	var wg sync.WaitGroup
	for i, exp := range expectations {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = runCase(t.TempDir(), exp)
		}()
	}
	wg.Wait()
	for _, r := range results {
		t.Run(r.exp.name, func(t *testing.T) { checkCase(t, r) })
	}
	caseRows = results
}

// caseRows are the matrix's results, for the doc.
var caseRows []*result

// runCase runs the case, and again, up to starvedTries in all, while a
// try failed its checks and this process stalled for stallLimit or more
// during it (see starvedTries).
func runCase(dir string, exp expect) *result {
	var starved []string
	for try := 1; ; try++ {
		r := runCaseOnce(filepath.Join(dir, strconv.Itoa(try)), exp)
		ok, why := passes(r)
		stall := r.stall()
		if ok || stall < stallLimit || try == starvedTries {
			r.starved = starved
			return r
		}
		starved = append(starved, fmt.Sprintf("try %d, during which the servers' process stalled %s, failed: %s", try, stall.Round(time.Millisecond), why))
	}
}

// stall is the longest this process stalled during any of the case's runs.
func (r *result) stall() time.Duration {
	return max(r.run.stall, r.netRun.stall, r.sweep.stall)
}

// runCaseOnce starts the case's server, runs mcpbench against it (run,
// sweep, and for the secret cases compare) and stops it.
func runCaseOnce(dir string, exp expect) *result {
	r := &result{exp: exp, files: map[string][]byte{}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.setupErr = err
		return r
	}
	c := Find(exp.name)
	if c == nil {
		r.setupErr = fmt.Errorf("no server for case %q", exp.name)
		return r
	}
	r.does = c.Does
	t, err := startTarget(dir, c)
	if err != nil {
		r.setupErr = err
		return r
	}
	defer t.stop(r)
	n, sn := or(exp.n, runN), or(exp.sweepN, sweepN)
	common := []string{"--timeout", exp.timeout().String(), "--max-response-bytes", strconv.Itoa(maxResponse), "--no-progress", "--out-dir", dir}

	r.runBound = bound(exp, t.srv == nil, roundsOf(n, runWorkers))
	args := append([]string{"run", "-c", strconv.Itoa(runWorkers), "-n", strconv.Itoa(n),
		"--json-out", filepath.Join(dir, "run.json"), "--md-out", filepath.Join(dir, "run.md"), "--html-out", filepath.Join(dir, "run.html")}, common...)
	r.run, r.inits = runChildUnstarved(exp, r.runBound+30*time.Second, t, append(args, t.args...)...)
	if t.srv != nil {
		net := append([]string{"run", "--engine", "net/http", "-c", strconv.Itoa(runWorkers), "-n", strconv.Itoa(n),
			"--json-out", filepath.Join(dir, "net.json")}, common...)
		r.netRun, _ = runChildUnstarved(exp, r.runBound+30*time.Second, t, append(net, t.args...)...)
	}

	rounds := 0
	for _, c := range sweepLevels {
		rounds += roundsOf(sn, c) + 3 // each point opens and closes its sessions
	}
	r.swBound = bound(exp, t.srv == nil, rounds)
	args = append([]string{"sweep", "--concurrency-values", joinInts(sweepLevels), "-n", strconv.Itoa(sn),
		"--json-out", filepath.Join(dir, "sweep.json"), "--md-out", filepath.Join(dir, "sweep.md"), "--svg-out", filepath.Join(dir, "sweep.svg"), "--html-out", filepath.Join(dir, "sweep.html")}, common...)
	r.sweep, _ = runChildUnstarved(exp, r.swBound+30*time.Second, t, append(args, t.args...)...)
	readReports(r, dir)
	return r
}

// setUpTimedOut is a set-up that failed on a time-out (exit 3): the
// handshake of a case whose handshake is sound did not come in --timeout.
var setUpTimedOut = regexp.MustCompile(`(?i)time.?out|timed out|deadline`)

// make test runs this package at SCHED_IDLE, servers and clients alike,
// and the timed lane can take both cores for longer than the 2 s
// --timeout of the timeout cases. A handshake then timed out before the
// server had run at all (exit 3, nothing counted), or a measured request
// timed out before the server had sent what the case sends: neither says
// anything of the case. So a run whose set-up timed out is run again, and
// a case that failed its checks while this process (the servers) stalled
// for stallLimit or more is run again whole, up to starvedTries in all;
// the last try is checked whatever it met. Retrying only failed tries
// keeps a starved lane from running every case again.
const (
	starvedTries = 3
	stallLimit   = requestTimeout / 4
)

// runChildUnstarved is runChild, run again while its set-up timed out.
// inits is the server's count of sessions opened during the try kept.
func runChildUnstarved(exp expect, hardLimit time.Duration, t *target, args ...string) (o outcome, inits int64) {
	var starved []string
	for try := 1; ; try++ {
		before := t.inits()
		o = runChild(hardLimit, t.env, args...)
		inits = t.inits() - before
		if o.code != 3 || exp.dialFails || !setUpTimedOut.Match(o.stderr) || try == starvedTries {
			o.starved = starved
			return o, inits
		}
		starved = append(starved, fmt.Sprintf("try %d: its set-up timed out: %s", try, lastLine(o.stderr)))
	}
}

// target is what mcpbench is pointed at: an HTTP server of this process,
// or a stdio server it spawns (this test binary again).
type target struct {
	args, env []string
	srv       *Server
	pidDir    string
}

func startTarget(dir string, c *Case) (*target, error) {
	if c.Stdio == nil {
		srv, err := Start(c.Name)
		if err != nil {
			return nil, err
		}
		return &target{args: []string{"--url", srv.URL()}, srv: srv}, nil
	}
	pidDir := filepath.Join(dir, "pids")
	if err := os.Mkdir(pidDir, 0o755); err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return &target{
		args:   []string{"--transport", "stdio", "--", self},
		env:    []string{"HOSTILE_STDIO=" + c.Name, "HOSTILE_PIDDIR=" + pidDir},
		pidDir: pidDir,
	}, nil
}

// inits is how many sessions the server has opened so far.
func (t *target) inits() int64 {
	if t.srv == nil {
		return 0
	}
	return t.srv.Initializes.Load()
}

// stop stops the server, or notes the stdio processes that were started.
func (t *target) stop(r *result) {
	if t.srv != nil {
		t.srv.Close()
	} else {
		r.pids = readPids(t.pidDir)
	}
}

// readReports reads back what the runs wrote, and for the secret cases
// has compare write JUnit from the run's report.
func readReports(r *result, dir string) {
	for _, f := range []string{"run.json", "run.md", "run.html", "sweep.json", "sweep.md", "sweep.svg", "sweep.html", "net.json", "compare.html"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
			r.files[f] = b
		}
	}
	_ = json.Unmarshal(r.files["run.json"], &r.runRep)
	_ = json.Unmarshal(r.files["net.json"], &r.netRep)
	var sw struct {
		Points []pointReport `json:"points"`
	}
	_ = json.Unmarshal(r.files["sweep.json"], &sw)
	r.swReps = sw.Points
	if _, ok := r.files["run.json"]; ok && strings.HasPrefix(r.exp.name, "echo-token") {
		junit := filepath.Join(dir, "compare.xml")
		cmp := runChild(30*time.Second, nil, "compare", "--junit-out", junit, "--html-out", filepath.Join(dir, "compare.html"), filepath.Join(dir, "run.json"), filepath.Join(dir, "run.json"))
		r.junit, _ = os.ReadFile(junit)
		if b, err := os.ReadFile(filepath.Join(dir, "compare.html")); err == nil {
			r.files["compare.html"] = b
		}
		r.junit = append(append(r.junit, cmp.stdout...), cmp.stderr...)
	}
}

// bound is how long a run of the given rounds may take: each exchange
// may wait out the timeout, plus the handshake (discover, initialize,
// its notification), each session's opening (initialize, notification)
// and closing (DELETE), and for stdio the processes' shutdown.
func bound(exp expect, stdio bool, rounds int) time.Duration {
	attempts := 3 + 3 + rounds*or(exp.perRequest, 1)
	b := time.Duration(attempts)*requestTimeout + margin
	if stdio {
		b += stdioShutdown
	}
	return b
}

// timeout is the case's --timeout: requestTimeout where requests (or the
// handshake) wait it out, patientTimeout elsewhere.
func (e expect) timeout() time.Duration {
	if e.kind == "timeout" || e.dialFails {
		return requestTimeout
	}
	return patientTimeout
}

func roundsOf(n, workers int) int { return (n + workers - 1) / workers }

func or(v, dflt int) int {
	if v == 0 {
		return dflt
	}
	return v
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func readPids(dir string) []int {
	ents, _ := os.ReadDir(dir)
	var pids []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// leaks lists the places a part of the token appears in.
func leaks(places map[string][]byte) []string {
	var parts []string
	for i := 0; i+12 <= len(token); i += 6 {
		parts = append(parts, token[i:i+12])
	}
	var out []string
	for name, b := range places {
		for _, p := range parts {
			if bytes.Contains(b, []byte(p)) {
				out = append(out, name)
				break
			}
		}
	}
	return out
}
