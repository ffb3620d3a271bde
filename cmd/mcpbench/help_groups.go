package main

import (
	"strings"

	"github.com/spf13/pflag"
)

// --help groups a command's flags under headings, as kubectl, k6 and gh
// do: seventy-odd flags in one list hide the few a user is after. The
// groups live in one table, from flag name to group, so a flag added in
// any flags_*.go file is placed here; TestEveryFlagHasAHelpGroup fails
// until it is.

// helpGroups is the order of the headings, for every command.
var helpGroups = []string{
	"A/B sides",
	"Target and transport",
	"Authentication",
	"Load",
	"Workload and tools",
	"Scenarios",
	"SLO and gates",
	"Time series and server",
	"Probe benchmarks",
	"Log window",
	"Merging",
	"Server",
	"Served tools",
	"Stats log",
	"Faults",
	"Outputs",
	"Shards",
}

// flagGroups maps a flag to its group: "command flag" for a flag that
// means something else in that command (serve's --tools is a count),
// else the flag's name.
var flagGroups = map[string]string{
	"url": "Target and transport", "transport": "Target and transport", "stdio-procs": "Target and transport",
	"engine": "Target and transport", "protocol-version": "Target and transport", "session": "Target and transport",
	"header": "Target and transport", "timeout": "Target and transport", "timeout-secs": "Target and transport",
	"insecure": "Target and transport", "cacert": "Target and transport", "max-response-bytes": "Target and transport",
	"client-requests": "Target and transport", "get-stream": "Target and transport",

	"secret-header": "Authentication", "oauth": "Authentication", "oauth-client-id": "Authentication",
	"oauth-client-secret": "Authentication", "oauth-client-key": "Authentication", "oauth-idp-token-endpoint": "Authentication",
	"oauth-idp-client-id": "Authentication", "oauth-scope": "Authentication",

	"concurrency": "Load", "rate": "Load", "max-in-flight": "Load", "total": "Load", "duration": "Load",
	"warmup": "Load", "ramp-up": "Load", "max-rate": "Load", "seed": "Load", "driver": "Load",
	"concurrency-values": "Load", "concurrency-range": "Load", "rate-values": "Load", "rate-range": "Load",
	"refine": "Load", "cooldown": "Load", "stages": "Load", "rate-stages": "Load",

	"method": "Workload and tools", "tool": "Workload and tools", "args": "Workload and tools",
	"gen-args": "Workload and tools", "arg-cardinality": "Workload and tools", "mix": "Workload and tools",
	"inject-args": "Workload and tools", "no-validate": "Workload and tools", "allow-writes": "Workload and tools",
	"allow-destructive": "Workload and tools", "tools": "Workload and tools", "exclude-tools": "Workload and tools",
	"dry-run": "Workload and tools",

	"scenario": "Scenarios", "users": "Scenarios", "users-values": "Scenarios", "session-rate": "Scenarios",
	"max-sessions": "Scenarios", "new-connection-per-session": "Scenarios",

	"p95-slo-ms": "SLO and gates", "p99-slo-ms": "SLO and gates", "max-error-rate": "SLO and gates",
	"allow-request-errors": "SLO and gates", "fail-on-slo": "SLO and gates", "count-tool-errors": "SLO and gates",
	"require-concurrency": "SLO and gates", "fail-on-leak": "SLO and gates",
	"max-p95-regression": "SLO and gates", "max-p99-regression": "SLO and gates", "max-rps-regression": "SLO and gates",
	"max-error-rate-increase": "SLO and gates", "max-recovery": "SLO and gates", "abort-on": "SLO and gates",

	"interval": "Time series and server", "live": "Time series and server", "server-pid": "Time series and server",
	"server-metrics": "Time series and server", "server-metric": "Time series and server",
	"soak-warmup": "Time series and server", "health-url": "Time series and server",
	"log-file": "Time series and server", "log-settle": "Time series and server",

	"sequential-samples": "Probe benchmarks", "sequential-sleep-ms": "Probe benchmarks",
	"bench-small-total": "Probe benchmarks", "bench-small-concurrency": "Probe benchmarks",
	"bench-large-total": "Probe benchmarks", "bench-large-concurrency": "Probe benchmarks",

	"from-offset":   "Log window",
	"allow-missing": "Merging",

	"serve addr": "Server", "serve stateless": "Server", "serve stdio": "Server", "serve json-response": "Server",
	"serve fixed-response": "Server", "serve fixed-engine": "Server",
	"serve oauth": "Authentication", "serve token-ttl": "Authentication", "serve oauth-client-id": "Authentication",
	"serve oauth-client-secret": "Authentication",
	"serve tools":               "Served tools", "serve capacity": "Served tools", "serve service-time": "Served tools", "serve burn": "Served tools",
	"serve service-dist": "Served tools", "serve client-tools": "Served tools", "serve seed": "Served tools",
	"serve log-file": "Stats log", "serve stats-interval": "Stats log", "serve list-cache-ttl": "Stats log",
	"serve list-build-time": "Stats log",
	"serve fault":           "Faults", "serve fault-rate": "Faults", "serve oversized-bytes": "Faults", "serve stall": "Faults",
	"serve stall-every": "Faults", "serve leak-per-request": "Faults", "serve leak-sessions": "Faults",

	"json-out": "Outputs", "md-out": "Outputs", "html-out": "Outputs", "svg-out": "Outputs", "junit-out": "Outputs",
	"out-dir": "Outputs", "quiet": "Outputs", "no-progress": "Outputs", "cpuprofile": "Outputs", "memprofile": "Outputs",
	"dashboard": "Outputs", "out": "Outputs", "out-label": "Outputs", "trace": "Outputs",

	"shard": "Shards", "start-at": "Shards",

	"a-url": "A/B sides", "b-url": "A/B sides", "a-cmd": "A/B sides", "b-cmd": "A/B sides", "path": "A/B sides",
	"a-metrics": "A/B sides", "b-metrics": "A/B sides", "a-pid": "A/B sides", "b-pid": "A/B sides",
	"ab health-url": "A/B sides", "duet": "A/B sides",
	"alpha": "SLO and gates", "min-effect": "SLO and gates", "max-rounds": "SLO and gates", "budget": "SLO and gates",
	"fail-on-inconclusive": "SLO and gates",

	"uri": "Workload and tools", "prompt": "Workload and tools",
	"abandon-sessions": "Target and transport", "think-scale": "Scenarios",
	"record listen": "Target and transport", "record upstream": "Target and transport",
	"record scenario-out": "Outputs", "record redact": "Outputs", "record min-answer-time": "Target and transport",
}

// helpGroup is the group of flag name in the command's flag set; "" when
// the table has none.
func helpGroup(command, name string) string {
	if g, ok := flagGroups[command+" "+name]; ok {
		return g
	}
	return flagGroups[name]
}

// groupedUsages is fs's flag help under the headings of helpGroups, in
// their order; a flag the table lacks goes under "Other" at the end.
func groupedUsages(fs *pflag.FlagSet) string {
	sets := map[string]*pflag.FlagSet{}
	fs.VisitAll(func(f *pflag.Flag) {
		g := helpGroup(fs.Name(), f.Name)
		if g == "" {
			g = "Other"
		}
		if sets[g] == nil {
			sets[g] = pflag.NewFlagSet(g, pflag.ContinueOnError)
			sets[g].SortFlags = false
		}
		sets[g].AddFlag(f)
	})
	var b strings.Builder
	for _, g := range append(helpGroups[:len(helpGroups):len(helpGroups)], "Other") {
		if set := sets[g]; set != nil {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(g + ":\n" + set.FlagUsages())
		}
	}
	return b.String()
}
