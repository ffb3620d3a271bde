package main

import (
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/pflag"

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

func (w *workloadFlags) register(fs *pflag.FlagSet, sweep bool) {
	fs.StringVar(&w.method, "method", "tools/list", strings.Join(workload.Methods(), "|"))
	fs.StringVar(&w.tool, "tool", "", "tool NAME for tools/call")
	fs.StringVar(&w.args, "args", "", "tools/call (or prompts/get) arguments: JSON, or @FILE; for completion/complete the argument and its value so far, e.g. '{\"style\":\"a\"}'")
	fs.StringVar(&w.uri, "uri", "", "resource URI for resources/read (or a resource template for completion/complete)")
	fs.StringVar(&w.prompt, "prompt", "", "prompt NAME for prompts/get (or completion/complete)")
	if !sweep {
		fs.IntVarP(&w.concurrency, "concurrency", "c", 1, "closed loop: `N` workers, each waits for its answer")
		fs.Float64Var(&w.rate, "rate", 0, "open loop: `R` requests/s on a fixed schedule")
	}
	fs.IntVar(&w.maxInFlight, "max-in-flight", 0, "open loop: most requests outstanding at once")
	if sweep {
		fs.Int64VarP(&w.total, "total", "n", 0, "measure `N` requests at each point (default 1000 at each concurrency when -d is not given)")
		fs.DurationVarP(&w.duration, "duration", "d", 0, "measure each point for `D` (default 10s at each rate when -n is not given)")
	} else {
		fs.Int64VarP(&w.total, "total", "n", 0, "stop after `N` measured requests")
		fs.DurationVarP(&w.duration, "duration", "d", 0, "stop after `D` (default 10s when -n is not given)")
	}
	fs.Int64Var(&w.warmup, "warmup", 0, "requests sent and discarded before measuring (alias --warmup-calls)")
	fs.DurationVar(&w.rampUp, "ramp-up", 0, "add workers (or raise the rate) evenly over D, not measured")
	fs.Float64Var(&w.maxRate, "max-rate", 0, "cap a closed loop at R requests/s")
	fs.Uint64Var(&w.seed, "seed", 1, "seed for mixes and generated arguments")
	fs.StringVar(&w.driver, "driver", "auto", "what runs the workers: auto or loops (event loops, one per core, where they fit: the direct engine without --max-rate or sessions of a scenario; else goroutines), goroutines")
	enumFlag(fs, "method", workload.Methods()...)
	enumFlag(fs, "driver", "auto", "loops", "goroutines")
	if !sweep {
		limitFlags(fs, atLeastOne(maxWorkers), "concurrency")
		limitFlags(fs, above0(maxRate), "rate")
	}
	limitFlags(fs, atLeastOne(maxWorkers), "max-in-flight")
	limitFlags(fs, atLeastOne(maxRequests), "total")
	limitFlags(fs, durationUpTo(maxRunTime), "duration")
	limitFlags(fs, zeroOrMore(maxRequests), "warmup")
	limitFlags(fs, pauseUpTo(maxRunTime), "ramp-up")
	limitFlags(fs, above0(maxRate), "max-rate")
	limitFlags(fs, anyValue, "seed")
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
