#!/usr/bin/env bash
# Runs the same command lines with two mcpbench binaries and says where they
# differ: exit code, stderr and stdout (numbers masked), and each JSON
# report's fields (names, order and types; strings, booleans and counts that
# do not depend on timing compared exactly). For a refactor that must not
# change behaviour: scripts/compare-binaries.sh OLD NEW.
#
# Every server it starts is the OLD binary's bundled server on 127.0.0.1,
# stopped at the end; every run is bounded in requests or time.
set -uo pipefail

old=${1:?usage: compare-binaries.sh OLD NEW}
new=${2:?usage: compare-binaries.sh OLD NEW}
old=$(realpath "$old")
new=$(realpath "$new")
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# serve NAME FLAGS...: starts the old binary's server, sets NAME to its base URL.
serve() {
	local name=$1
	shift
	local out="$work/serve-$name.out"
	"$old" serve --addr 127.0.0.1:0 "$@" >"$out" 2>"$work/serve-$name.err" &
	pids+=($!)
	for _ in $(seq 100); do
		[[ -s $out ]] && break
		sleep 0.05
	done
	local url
	url=$(head -1 "$out" | grep -o 'http://[^ ]*')
	url=${url%/mcp}
	printf -v "$name" '%s' "$url"
}

serve BASE
serve STATELESS --stateless --json-response
serve SLOW --capacity 4 --service-time 5ms
log="$work/server.log"
serve LOGGED --log-file "$log" --stats-interval 200ms
mkdir -p "$work/in"
printf '[{"method":"tools/list","weight":1},{"method":"tools/call","tool":"echo","args":{"message":"m"},"weight":2}]\n' >"$work/in/mix.json"
printf 'scenarios:\n  - name: bad\n    steps:\n      - call: echo\n        args: [1, 2]\n' >"$work/in/bad.yaml"

# The command lines. @OUT@ is a folder of the binary's own; @BIN@ the
# binary itself (for stdio servers the old one serves both).
cmds=(
	"version"
	"--help"
	"run --help"
	"sweep --help"
	"probe --help"
	"completion bash"
	"run --url $BASE/mcp -c 4 -n 300 --json-out @OUT@/r.json"
	"run --url $BASE/mcp --method tools/call --tool echo --args {\"message\":\"hi\"} -c 4 -n 300 --json-out @OUT@/r.json"
	"run --url $BASE/mcp --rate 300 -n 300 --json-out @OUT@/r.json"
	"run --url $BASE/mcp --method tools/call --gen-args -c 1 -n 200 --json-out @OUT@/r.json"
	"run --url $BASE/mcp --mix $work/in/mix.json -c 2 -n 200 --seed 3 --json-out @OUT@/r.json"
	"run --url $BASE/mcp --scenario $here/docs/examples/coding-agent.yaml --users 2 --max-sessions 6 --json-out @OUT@/r.json"
	"run --url $BASE/mcp --engine net/http -c 4 -n 300 --json-out @OUT@/r.json"
	"run --url $BASE/mcp --driver goroutines -c 4 -n 300 --json-out @OUT@/r.json"
	"run --url $BASE/mcp --session per-request -c 2 -n 100 --json-out @OUT@/r.json"
	"run --url $BASE/mcp --session shared -c 1 -n 200 --json-out @OUT@/r.json"
	"run --url $BASE/mcp --method tools/call --gen-args --dry-run -c 2 -n 100"
	"run --url $STATELESS/mcp --method tools/call --tool echo --args {\"message\":\"x\"} -c 4 -n 300 --json-out @OUT@/r.json"
	"run --url $BASE/sse --transport sse -c 2 -n 100 --json-out @OUT@/r.json"
	"run --url $BASE/mcp --protocol-version 2025-06-18 -c 2 -n 100 --json-out @OUT@/r.json"
	"run --transport stdio -c 2 -n 100 --json-out @OUT@/r.json -- $old serve --stdio"
	"run --url $BASE/mcp --shard 0/2 -c 4 -n 200 --json-out @OUT@/r.json"
	"run --url $BASE/mcp -c 2 -d 2s --live --no-progress --json-out @OUT@/r.json"
	"run --url $BASE/mcp -c 2 -n 100 --md-out -"
	"run --url $SLOW/mcp -c 8 -n 200 --p95-slo-ms 0.001 --fail-on-slo --json-out @OUT@/r.json"
	"run --url $LOGGED/mcp -c 2 -n 200 --log-file $log --log-settle 1s --json-out @OUT@/r.json"
	"run --url http://127.0.0.1:1/mcp -n 5"
	"run --url $BASE/mcp --no-such-flag"
	"run --url $BASE/mcp --engine turbo -n 5"
	"run --url $BASE/mcp --method tools/call --tool no_such_tool -n 5"
	"run --url $BASE/mcp --scenario $work/in/bad.yaml --users 1 --max-sessions 1"
	"run --url $BASE/mcp -c 0 -n 5"
	"sweep --url $BASE/mcp --concurrency-values 1,2,4 -n 100 --json-out @OUT@/s.json"
	"sweep --url $SLOW/mcp --rate-range 100:300:+100 -d 1s --p99-slo-ms 100 --json-out @OUT@/s.json"
	"sweep --url $BASE/mcp --scenario $here/docs/examples/coding-agent.yaml --users-values 1,2 --max-sessions 4 --json-out @OUT@/s.json"
	"probe --url $BASE/mcp --bench-large-total 0 --json-out @OUT@/p.json"
	"logscan --json-out - $log"
	"compare @OUT@/base.json @OUT@/base.json --max-p95-regression 10%"
	"merge @OUT@/base.json @OUT@/base.json --json-out @OUT@/m.json"
)

# A report for compare and merge, from the old binary, shared by both.
"$old" run --url "$BASE/mcp" -c 2 -n 100 --quiet --json-out "$work/base.json" >/dev/null 2>&1

# mask: numbers, durations and addresses vary between runs and binaries.
mask() {
	sed -E -e "s#$work/(old|new)#OUT#g" -e "s#$old|$new#BIN#g" \
		-e 's/[0-9]+([.][0-9]+)?(e[+-]?[0-9]+)?/N/g' -e 's/N(ms|µs|us|ns|s|m|h|%|x|×|KiB|MiB|GiB|kB|MB|B)/N/g' \
		-e 's/ +/ /g' -e 's/-{2,}/-/g' |
		# Verdicts drawn from timings (knee, model, soak trends, saturation) move
		# with the machine's load.
		grep -Ev '^(knee|usl|recommend|soak)|saturated'
}

# shape FILE: the JSON's leaves as path<TAB>value, timing-free values kept.
shape() {
	python3 - "$1" "$2" <<'PY'
import json, re, sys
# Counts that a bounded run fixes (or that are configuration), compared exactly.
EXACT = {"requests", "ok", "errors", "total", "concurrency", "workers", "sessions", "users",
         "count", "calls", "steps", "tool_calls", "points", "shard", "of", "warmup"}
# Server-side figures (health, the server's log and gauges) move with what the
# shared server has served before; histograms are timings.
SKIP = re.compile(r"^\.(health|points\[0\]\.health)|\.log_scan\.|\.soak\.|\.knee\.|\.usl\.|saturat|recommend|histogram")
# Counts are exact only in a run bounded by -n; how they split over
# operations, buckets and levels follows the scheduler.
EXACT_RUN = sys.argv[2] == "exact"
SPLIT = re.compile(r"by_operation|series|by_scenario|steps\[")
def walk(p, v, out):
    if SKIP.search(p):
        out.append(re.sub(r"\.(health|log_scan|soak|knee|usl)\..*", r".\1.*", p))
        return
    if isinstance(v, dict):
        for k, x in v.items():
            walk(p + "." + k, x, out)
    elif isinstance(v, list):
        out.append(p + "[]")
        for x in v[:1]:
            walk(p + "[0]", x, out)
    elif isinstance(v, bool) or v is None:
        out.append(f"{p}\t{v}")
    elif isinstance(v, (int, float)):
        key = p.rsplit(".", 1)[-1]
        exact = EXACT_RUN and key in EXACT and float(v).is_integer() and not SPLIT.search(p)
        out.append(f"{p}\t{v}" if exact else f"{p}\tnumber")
    else:
        s = re.sub(r"[0-9]+", "N", v)
        out.append(f"{p}\t{s[:80]}")
with open(sys.argv[1]) as f:
    out = []
    walk("", json.load(f), out)
seen = set()
print("\n".join(x for x in out if not (x in seen or seen.add(x))))
PY
}

differs=0
i=0
for cmd in "${cmds[@]}"; do
	i=$((i + 1))
	exact=loose
	[[ $cmd == "run "*" -n "* ]] && exact=exact
	for side in old new; do
		bin=${!side}
		d="$work/$side"
		rm -rf "$d"
		mkdir -p "$d"
		cp "$work/base.json" "$d/base.json"
		line=${cmd//@OUT@/$d}
		# shellcheck disable=SC2086
		(cd "$d" && timeout 60 "$bin" $line >"$d.stdout" 2>"$d.stderr")
		echo $? >"$d.rc"
		mask <"$d.stdout" >"$d.stdout.m"
		mask <"$d.stderr" | grep -v '^\s*$' >"$d.stderr.m"
		: >"$d.json.m"
		for f in "$d"/r.json "$d"/s.json "$d"/p.json "$d"/m.json; do
			[[ -f $f ]] && shape "$f" "$exact" >>"$d.json.m"
		done
		# The reports an out-dir run writes by default are compared as well.
		if [[ -d "$d/.run/reports" ]]; then
			for f in "$d"/.run/reports/*.json; do [[ -f $f ]] && shape "$f" "$exact" >>"$d.json.m"; done
		fi
	done
	verdict=same
	for part in rc stdout.m stderr.m json.m; do
		if ! cmp -s "$work/old.$part" "$work/new.$part"; then
			verdict="DIFFERS ($part)"
			break
		fi
	done
	printf '%2d rc=%s %-16s mcpbench %s\n' "$i" "$(cat "$work/old.rc")" "$verdict" "${cmd//$work/\$W}"
	if [[ $verdict != same ]]; then
		differs=$((differs + 1))
		diff "$work/old.$part" "$work/new.$part" | head -20 | sed 's/^/    /'
	fi
done
echo "$i command lines, $differs differ"
[[ $differs -eq 0 ]]
