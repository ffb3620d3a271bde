package main

import (
	"encoding/json"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// workloadFlags say what to send and how much.
type workloadFlags struct {
	method      string
	tool        string
	args        string
	concurrency int
	rate        float64
	maxInFlight int
	total       int64
	duration    time.Duration
	warmup      int64
	rampUp      time.Duration
	maxRate     float64
	seed        uint64
}

func (w *workloadFlags) register(fs *pflag.FlagSet, sweep bool) {
	fs.StringVar(&w.method, "method", "tools/list", "tools/list|tools/call|ping|server/discover")
	fs.StringVar(&w.tool, "tool", "", "tool NAME for tools/call")
	fs.StringVar(&w.args, "args", "", "tools/call arguments: JSON, or @FILE")
	if !sweep {
		fs.IntVarP(&w.concurrency, "concurrency", "c", 1, "closed loop: N workers, each waits for its answer")
		fs.Float64Var(&w.rate, "rate", 0, "open loop: R requests/s on a fixed schedule")
	}
	fs.IntVar(&w.maxInFlight, "max-in-flight", 0, "open loop: most requests outstanding at once")
	fs.Int64VarP(&w.total, "total", "n", 0, "stop after N measured requests")
	fs.DurationVarP(&w.duration, "duration", "d", 0, "stop after D (default 10s when -n is not given)")
	fs.Int64Var(&w.warmup, "warmup", 0, "requests sent and discarded before measuring (alias --warmup-calls)")
	fs.DurationVar(&w.rampUp, "ramp-up", 0, "add workers (or raise the rate) evenly over D, not measured")
	fs.Float64Var(&w.maxRate, "max-rate", 0, "cap a closed loop at R requests/s")
	fs.Uint64Var(&w.seed, "seed", 1, "seed for mixes and generated arguments")
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
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, usagef("%s: not a JSON object: %v", flag, err)
	}
	return json.RawMessage(b), nil
}
