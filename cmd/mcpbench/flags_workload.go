package main

import (
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/mcpbench/mcpbench/internal/textfmt"
	"github.com/mcpbench/mcpbench/workload"
)

// workloadFlags say what to send and how much.
type workloadFlags struct {
	method      string
	tool        string
	args        string
	uri         string
	prompt      string
	concurrency int
	rate        float64
	maxInFlight int
	total       int64
	duration    time.Duration
	warmup      int64
	rampUp      time.Duration
	maxRate     float64
	seed        uint64
	driver      string
}

// requests declares what is sent.
func (w *workloadFlags) requests() []flagDecl {
	return []flagDecl{
		{name: "method", to: &w.method, def: "tools/list", group: "Workload and tools", hints: workload.Methods(), usage: strings.Join(workload.Methods(), "|")},
		{name: "tool", to: &w.tool, group: "Workload and tools", usage: "tool NAME for tools/call"},
		{name: "args", to: &w.args, group: "Workload and tools", usage: "tools/call (or prompts/get) arguments: JSON, or @FILE; for completion/complete the argument and its value so far, e.g. '{\"style\":\"a\"}'"},
		{name: "uri", to: &w.uri, group: "Workload and tools", usage: "resource URI for resources/read (or a resource template for completion/complete)"},
		{name: "prompt", to: &w.prompt, group: "Workload and tools", usage: "prompt NAME for prompts/get (or completion/complete)"},
	}
}

// level declares run's one level of load: workers or a rate.
func (w *workloadFlags) level() []flagDecl {
	return []flagDecl{
		{name: "concurrency", short: "c", to: &w.concurrency, def: 1, group: "Load", rng: atLeastOne(maxWorkers), usage: "closed loop: `N` workers, each waits for its answer"},
		{name: "rate", to: &w.rate, group: "Load", rng: above0(maxRate), usage: "open loop: `R` requests/s on a fixed schedule"},
	}
}

// inFlight declares the open loop's bound.
func (w *workloadFlags) inFlight() []flagDecl {
	return []flagDecl{{name: "max-in-flight", to: &w.maxInFlight, group: "Load", rng: atLeastOne(maxWorkers), usage: "open loop: most requests outstanding at once"}}
}

// length declares -n and -d, whose help says what they count: the run
// (totalUsage, durationUsage) or each point of a sweep.
func (w *workloadFlags) length(totalUsage, durationUsage string) []flagDecl {
	return []flagDecl{
		{name: "total", short: "n", to: &w.total, group: "Load", rng: atLeastOne(maxRequests), usage: totalUsage},
		{name: "duration", short: "d", to: &w.duration, group: "Load", rng: durationUpTo(maxRunTime), usage: durationUsage},
	}
}

// pacing declares how the load is paced and what runs it.
func (w *workloadFlags) pacing() []flagDecl {
	return []flagDecl{
		{name: "warmup", to: &w.warmup, group: "Load", rng: zeroOrMore(maxRequests), usage: "requests sent and discarded before measuring (alias --warmup-calls)"},
		{name: "ramp-up", to: &w.rampUp, group: "Load", rng: pauseUpTo(maxRunTime), usage: "add workers (or raise the rate) evenly over D, not measured"},
		{name: "max-rate", to: &w.maxRate, group: "Load", rng: above0(maxRate), usage: "cap a closed loop at R requests/s"},
		{name: "seed", to: &w.seed, def: uint64(1), group: "Load", rng: anyValue, usage: "seed for mixes and generated arguments"},
		{name: "driver", to: &w.driver, def: "auto", group: "Load", hints: []string{"auto", "loops", "goroutines"}, usage: "what runs the workers: auto or loops (event loops, one per core, where they fit: the direct engine without --max-rate or sessions of a scenario; else goroutines), goroutines"},
	}
}

// readJSONArg reads a JSON object given inline or as @FILE.
func readJSONArg(flag, v string) (json.RawMessage, error) {
	if v == "" {
		return nil, nil
	}
	b := []byte(v)
	if strings.HasPrefix(v, "@") {
		var err error
		if b, err = os.ReadFile(v[1:]); err != nil {
			return nil, usagef("%s: %v", flag, err)
		}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		why := "got null"
		if err != nil {
			why = textfmt.JSONError(err)
		}
		return nil, usagef(`%s: not a JSON object (%s); e.g. %s '{"message":"hi"}'`, flag, why, flag)
	}
	return json.RawMessage(b), nil
}

// loops is harness.LevelConfig.Loops for --driver: one event loop per core the
// process may use, or none. "auto" (the default) and "loops" both use
// them where they fit and fall back to goroutines elsewhere; the report's
// client.driver says which ran.
func (w *workloadFlags) loops() (int, error) {
	switch w.driver {
	case "loops", "auto":
		return runtime.GOMAXPROCS(0), nil
	case "goroutines":
		return 0, nil
	}
	return 0, usagef("--driver %q: use auto, loops or goroutines", w.driver)
}
