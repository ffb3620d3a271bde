#!/usr/bin/env bash
# The trial table of issue 47: how often `mcpbench ab` raises a false
# alarm on identical servers, how often it finds a true 5% regression, and
# how long it takes to a verdict. Each trial is one `mcpbench ab` run with
# its own seed, its JSON kept under $AB_OUT; the table counts verdicts per
# metric over the trials of each kind.
#
#   aa-bundled   A/A: the bundled server against itself (same binary, same flags)
#   cpu-5pct     A/B: B burns 5% more CPU per call (serve --burn, sized from a
#                calibration run's CPU per request)
#   latency-5pct A/B: B's service time 5% longer (serve --service-time)
#   aa-everything A/A: the TypeScript SDK's server-everything (node, .run/peers),
#                 two processes started by the command
#
# Run it on a quiet machine: the table is the machine's as much as the
# method's. Every count and the budget can be made small to try it:
#
#   AB_TRIALS_AA=20 AB_TRIALS_CPU=20 AB_TRIALS_LAT=10 AB_TRIALS_PEER=5 \
#   AB_BUDGET=3m AB_DURATION=2s AB_CONCURRENCY=4 AB_PEER_CONCURRENCY=1 \
#   AB_MAX_ROUNDS=40 scripts/ab-trials.sh
#
# (those are the defaults). AB_OUT (default .run/ab-trials) keeps each
# trial's report; MCPBENCH (default: built from this tree into $AB_OUT)
# is the binary under test.
set -euo pipefail
cd "$(dirname "$0")/.."

trials_aa=${AB_TRIALS_AA:-20}
trials_cpu=${AB_TRIALS_CPU:-20}
trials_lat=${AB_TRIALS_LAT:-10}
trials_peer=${AB_TRIALS_PEER:-5}
budget=${AB_BUDGET:-3m}
duration=${AB_DURATION:-2s}
conc=${AB_CONCURRENCY:-4}
# server-everything costs about 2.3 ms of CPU per echo call: at 4 workers
# it and the generator keep both cores of a 2-core machine busy, and 16
# A/A rounds spread by 7.7% (throughput), 7.4% (p50) and 5.3% (CPU per
# request); at 1 worker by 2.6%, 2.5% and 3.1% (log-ratio SD).
peer_conc=${AB_PEER_CONCURRENCY:-1}
max_rounds=${AB_MAX_ROUNDS:-40}
out=${AB_OUT:-.run/ab-trials}
mkdir -p "$out"
bin=${MCPBENCH:-}
if [[ -z $bin ]]; then
	bin=$(realpath "$out")/mcpbench
	go build -o "$bin" ./cmd/mcpbench
fi
everything=.run/peers/node_modules/.bin/mcp-server-everything

serve="$bin serve --stateless --addr 127.0.0.1:{port}"
load=(--method tools/call --tool echo --args '{"message":"ab"}' -d "$duration"
	--budget "$budget" --max-rounds "$max_rounds" -q)

# trial KIND N ARGS...: runs N trials of one kind, trial i with seed i, so
# that any trial can be repeated alone.
trial() {
	local kind=$1 n=$2
	shift 2
	for ((i = 1; i <= n; i++)); do
		local json="$out/$kind-$i.json" code=0
		"$bin" ab "$@" "${load[@]}" --seed "$i" --json-out "$json" || code=$?
		if [[ $code -gt 1 ]]; then
			echo "ab-trials: $kind trial $i exited $code (see $json and its server logs)" >&2
		fi
		echo "$kind trial $i: exit $code" >&2
	done
}

# The burn that makes B's CPU per request 5% more than A's. A first guess
# of 5% of the server's CPU per request (the median of a short A/A's
# rounds) measured +5.5% to +11.6% (a call that burns also costs its
# thread's hand-off, and holds its request longer), so a short A/B with
# that guess measures what it does, and the burn is scaled by 5% over the
# median change it measured.
calibrate() {
	local json="$out/calibrate.json" guess
	# Five rounds judge nothing (alpha 0.5 only lets so short a plan run):
	# their ratios are all the calibration reads.
	cpu_ab() {
		"$bin" ab --a-cmd "$serve" --b-cmd "$1" --method tools/call --tool echo --args '{"message":"ab"}' \
			-c "$conc" -d "$duration" --max-rounds 5 --alpha 0.5 --seed 1 -q --json-out "$json" >/dev/null || true
	}
	cpu_ab "$serve"
	guess=$(jq -r '[.rounds[].a.server_cpu_per_request_s] | sort | .[length/2|floor] * 0.05 * 1e9 | floor' "$json")
	cpu_ab "$serve --burn ${guess}ns"
	jq -r --argjson guess "$guess" '[.rounds[] | .b.server_cpu_per_request_s / .a.server_cpu_per_request_s - 1] | sort | .[length/2|floor] as $c
		| if $c > 0 then ($guess * 0.05 / $c | floor | tostring + "ns") else ($guess | tostring + "ns") end' "$json"
}

rm -f "$out"/*.json
trial aa-bundled "$trials_aa" -c "$conc" --a-cmd "$serve" --b-cmd "$serve"
if ((trials_cpu > 0)); then
	burn=$(calibrate)
	echo "ab-trials: B burns $burn per call (calibrated to 5% more CPU per request)" >&2
	trial cpu-5pct "$trials_cpu" -c "$conc" --a-cmd "$serve" --b-cmd "$serve --burn $burn"
fi
trial latency-5pct "$trials_lat" -c "$conc" --a-cmd "$serve --service-time 10ms" --b-cmd "$serve --service-time 10500us"
if ((trials_peer > 0)); then
	if [[ -x $everything ]]; then
		peer="PORT={port} node $everything streamableHttp"
		trial aa-everything "$trials_peer" -c "$peer_conc" --a-cmd "$peer" --b-cmd "$peer"
	else
		echo "ab-trials: $everything is missing (scripts/install-peers.sh): no server-everything trials" >&2
	fi
fi

# The table: per kind, trials, then per metric the regressions found (false
# alarms in an A/A, detections in an A/B), the improvements and the "no
# change" verdicts (the rest were inconclusive); the trials that left a
# gated metric inconclusive; the median and longest time to a verdict.
echo
echo "| trials | n | throughput | p50 | p95 | server CPU/req | inconclusive (gated) | median s | longest s |"
echo "| --- | ---: | --- | --- | --- | --- | ---: | ---: | ---: |"
for kind in aa-bundled cpu-5pct latency-5pct aa-everything; do
	files=("$out/$kind"-*.json)
	[[ -e ${files[0]} ]] || continue
	jq -rs --arg kind "$kind" '
		def count(m; v): [.[] | .verdicts[] | select(.metric == m and .verdict == v)] | length;
		def cell(m): "\(count(m; "regression"))/\(length) reg, \(count(m; "improvement")) imp, \(count(m; "no_change")) same";
		def median: sort | if length == 0 then 0 else .[(length - 1) / 2 | floor] end;
		"| \($kind) | \(length) | \(cell("throughput")) | \(cell("p50")) | \(cell("p95")) | \(cell("server_cpu_per_request")) | " +
		"\([.[] | select(. as $r | any(.verdicts[]; .verdict == "inconclusive" and (.metric as $m | $r.settings.gated | index($m) != null)))] | length) | \([.[].elapsed_s] | median | floor) | \([.[].elapsed_s] | max | floor) |"
	' "${files[@]}"
done
