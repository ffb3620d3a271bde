#!/usr/bin/env bash
# Side by side in one run, against the same server, body, concurrency and
# duration: mcpbench, wrk, hey, k6 and mcp-stress. For each generator:
# requests/s, CPU per request (user+system from /usr/bin/time over
# requests sent, and the two apart: the kernel's share is much the same
# for wrk and mcpbench, so the user share shows where they differ) and
# peak memory. Prints a Markdown table per server with the ratios of the
# performance goal: mcpbench throughput >= 0.95x wrk's, CPU per request
# <= 1.15x wrk's (<= 1.3x against the Go SDK server, JSON or SSE).
#
#   scripts/bench-peers.sh [--cores N (1)] [-c CONNS (64 a core)] [-d SECONDS (5)]
#                          [-r ROUNDS (5)] [--server "fixed nethttp sdk sse scenario"] [--driver auto|loops|goroutines (auto)]
#
# sse is the Go SDK server answering in SSE streams (serve --stateless),
# every generator sending the same tools/list. scenario is not a peer
# comparison: mcpbench alone against the stateful SDK server, CPU per
# call of a 10-call scenario session (initialize, ten tools/call echo,
# DELETE) against the same calls as a plain closed-loop run.
#
# --cores N pins every generator to cores 0..N-1 (taskset) and gives wrk
# N threads; the server gets the cores above N when the machine has any,
# else it shares the generators' cores (the table says which).
#
# A shared machine varies by 10-20% from one 5-second run to the next, so
# the generators run in ROUNDS interleaved rounds (the order rotating, so
# none always goes first) and the table shows each one's median; every
# round's ratios are printed too.
#
# Loopback only. wrk and hey come from Debian's packages when missing, k6
# from the Go module proxy (go install go.k6.io/k6@v1.8.1) and mcp-stress
# from npm (@mcp-stress/linux-x64), both into $MCPBENCH_TOOLS
# (~/.cache/mcpbench-tools); MCPBENCH_PEERS_SKIP="k6 mcp-stress" leaves
# those out.
#
# MCPBENCH_BASELINE=BIN adds another mcpbench binary, run the same way
# ("baseline"), and the medians of the rounds' own ratios of this tree's
# mcpbench to it: how a change moved CPU per request and throughput.
set -euo pipefail
cd "$(dirname "$0")/.."

cores=1
conns=""
secs=5
rounds=5
servers="fixed nethttp sdk sse scenario"
driver=auto
while [ $# -gt 0 ]; do
  case "$1" in
    --cores) cores=$2; shift 2 ;;
    -c) conns=$2; shift 2 ;;
    -d) secs=$2; shift 2 ;;
    -r) rounds=$2; shift 2 ;;
    --server) servers=$2; shift 2 ;;
    --driver) driver=$2; shift 2 ;;
    *) echo "bench-peers: unknown argument $1" >&2; exit 2 ;;
  esac
done
total=$(nproc)
if ! [ "$cores" -ge 1 ] 2>/dev/null || [ "$cores" -gt "$total" ]; then
  echo "bench-peers: --cores must be 1 to $total" >&2
  exit 2
fi
conns=${conns:-$((64 * cores))}
gen_cpus="0-$((cores - 1))"
if [ "$total" -gt "$cores" ]; then
  server_cpus="$cores-$((total - 1))"
else
  server_cpus="0-$((total - 1))"
fi

need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "bench-peers: installing $1 from Debian's packages" >&2
  if [ "$(id -u)" = 0 ]; then
    (apt-get install -y -qq "$1" >/dev/null 2>&1) || (apt-get update -qq >/dev/null && apt-get install -y -qq "$1" >/dev/null)
  else
    sudo apt-get install -y -qq "$1" >/dev/null
  fi
}
need wrk
need hey
[ -x /usr/bin/time ] || need time
command -v taskset >/dev/null 2>&1 || need util-linux

tools=${MCPBENCH_TOOLS:-$HOME/.cache/mcpbench-tools}
skip=" ${MCPBENCH_PEERS_SKIP:-} "
gens=(wrk hey mcpbench)
if [[ $skip != *" k6 "* ]]; then
  if [ ! -x "$tools/bin/k6" ]; then
    echo "bench-peers: building k6 v1.8.1 from the Go module proxy (a few minutes, once)" >&2
    GOBIN="$tools/bin" go install go.k6.io/k6@v1.8.1
  fi
  gens+=(k6)
fi
baseline=${MCPBENCH_BASELINE:-}
if [ -n "$baseline" ]; then
  [ -x "$baseline" ] || { echo "bench-peers: MCPBENCH_BASELINE is not an executable: $baseline" >&2; exit 2; }
  gens+=(baseline)
fi
mcp_stress=$tools/mcp-stress/node_modules/@mcp-stress/linux-x64/bin/mcp-stress
if [[ $skip != *" mcp-stress "* ]]; then
  if [ ! -x "$mcp_stress" ]; then
    echo "bench-peers: installing @mcp-stress/linux-x64 from npm" >&2
    npm install --silent --no-save --prefix "$tools/mcp-stress" @mcp-stress/linux-x64@0.2.1 >/dev/null
  fi
  gens+=(mcp-stress)
fi

# shellcheck source=lib-bench.sh
. scripts/lib-bench.sh # after the cd above

# The same request for every generator: a tools/list JSON-RPC POST with the
# headers a 2026-07-28 client sends.
body='{"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}},"id":1}'
printf '%s' "$body" >"$work/body.json"
cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.body   = '$body'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/list"
LUA

cat >"$work/post.js" <<JS
import http from 'k6/http';
const body = open('$work/body.json');
const params = { headers: {
  'Content-Type': 'application/json',
  'Accept': 'application/json, text/event-stream',
  'MCP-Protocol-Version': '2026-07-28',
  'Mcp-Method': 'tools/list',
} };
export const options = { discardResponseBodies: true };
export default function () { http.post(__ENV.URL, body, params); }
JS

start_server() { # $1: fixed | nethttp | sdk | sse | scenario
  local args=(--tools 8)
  case "$1" in
    fixed) args+=(--fixed-response) ;;
    nethttp) args+=(--fixed-response --fixed-engine net/http) ;;
    sdk) args+=(--stateless --json-response) ;;
    sse) args+=(--stateless) ;;
    scenario) ;; # stateful, SSE answers
  esac
  serve "$server_cpus" "${args[@]}"
}

# timed NAME CMD...: runs CMD under /usr/bin/time, leaves its output in
# $work/NAME.out and "user sys maxrss_kb" in $work/NAME.time.
timed() {
  local name=$1; shift
  /usr/bin/time -f '%U %S %M' -o "$work/$name.time" taskset -c "$gen_cpus" "$@" >"$work/$name.out" 2>"$work/$name.err"
}

row() { # name requests: "name requests rps cpu_us rss_mib user_us sys_us"
  local name=$1 requests=$2
  read -r user sys rss <"$work/$name.time"
  awk -v n="$name" -v r="$requests" -v s="$secs" -v u="$user" -v y="$sys" -v m="$rss" \
    'BEGIN { if (r <= 0) { print "bench-peers: " n " sent no requests" > "/dev/stderr"; exit 1 }
             printf "%s %d %.0f %.2f %.1f %.2f %.2f\n", n, r, r / s, (u + y) * 1e6 / r, m / 1024, u * 1e6 / r, y * 1e6 / r }'
}

run_wrk() {
  timed wrk wrk -t"$cores" -c "$conns" -d "${secs}s" -s "$work/post.lua" "$url"
  row wrk "$(awk '/requests in/ {print $1}' "$work/wrk.out")"
}

run_hey() {
  timed hey hey -z "${secs}s" -c "$conns" -m POST -T application/json \
    -H "Accept: application/json, text/event-stream" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" \
    -D "$work/body.json" "$url"
  row hey "$(awk '/\[200\]/ {s += $2} END {print s + 0}' "$work/hey.out")"
}

run_mcpbench() {
  mcpbench_as mcpbench "$bin"
}

run_baseline() {
  mcpbench_as baseline "$baseline"
}

mcpbench_as() { # NAME BIN
  local name=$1 bin=$2
  timed "$name" "$bin" run --url "$url" -c "$conns" -d "${secs}s" --driver "$driver" --no-progress --json-out -
  engine=$(sed -n 's/.*"engine": "\([^"]*\)".*/\1/p' "$work/$name.out" | head -n1)
  engine="$engine, $(sed -n 's/.*"driver": "\([^"]*\)".*/\1/p' "$work/$name.out" | head -n1)"
  row "$name" "$(sed -n 's/^  "requests": \([0-9]*\),*/\1/p' "$work/$name.out" | head -n1)"
}

run_k6() {
  timed k6 "$tools/bin/k6" run --quiet --no-color --vus "$conns" --duration "${secs}s" -e URL="$url" "$work/post.js"
  row k6 "$(awk '/http_reqs/ {print $2; exit}' "$work/k6.out")"
}

run_mcp-stress() {
  timed mcp-stress "$mcp_stress" run -p tool-flood -c "$conns" -d "$secs" --json --url "$url"
  row mcp-stress "$(sed -n 's/.*"totalRequests": \([0-9]*\).*/\1/p' "$work/mcp-stress.out" | head -n1)"
}

# median_col N FILE: the median of column N of FILE.
median_col() {
  cut -d' ' -f"$1" "$2" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratios FILE: the goal's ratios from one set of rows.
ratios() {
  awk '
    $1 == "wrk" { wr = $3; wc = $4 }
    $1 == "hey" { hr = $3 }
    $1 == "mcpbench" { mr = $3; mc = $4 }
    END { printf "mcpbench CPU/request = %.2fx wrk (goal <= %s); throughput = %.2fx wrk (goal >= 0.95), %.2fx hey\n", mc / wc, cpu_goal, mr / wr, mr / hr }' cpu_goal="$cpu_goal" "$1"
}

echo "## mcpbench vs ${gens[*]}: ${cores} generator core(s), ${conns} connections, ${secs}s, tools/list POST, median of ${rounds} rounds"
echo
if [ "$total" -gt "$cores" ]; then
  where="the server on cores $server_cpus"
else
  where="the server shares those cores"
fi
echo "Machine: $total cores, $(uname -m), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1), $(go version | cut -d' ' -f3); generators on cores $gen_cpus, $where."
n=${#gens[@]}
# scenario_case: CPU per call of 10-call sessions against the same calls
# sent as single requests, in interleaved rounds against the stateful
# server.
scenario_case() {
  ten_calls "$work/ten.yaml" ten-calls
  start_server scenario
  "$bin" run --url "$url" -c "$conns" -d 1s -q --no-progress >/dev/null 2>&1 || true
  : >"$work/scen"
  for ((k = 0; k < rounds; k++)); do
    for g in $(if ((k % 2)); then echo plain session; else echo session plain; fi); do
      if [ "$g" = session ]; then
        timed session "$bin" run --url "$url" --scenario "$work/ten.yaml" --users "$conns" -d "${secs}s" --driver "$driver" --no-progress --json-out -
      else
        timed plain "$bin" run --url "$url" --method tools/call --tool echo --args '{"message":"hi"}' -c "$conns" -d "${secs}s" --driver "$driver" --no-progress --json-out -
      fi
      row "$g" "$(sed -n 's/^  "ok": \([0-9]*\),*/\1/p' "$work/$g.out" | head -n1)" >>"$work/scen"
    done
  done
  stop_server
  echo
  echo "### Scenario sessions: 10 tools/call echo a session (with its initialize and DELETE) vs the same calls as single requests, serve (stateful, SSE)"
  echo
  echo "| run | calls | calls/s | CPU per call (µs) | peak RSS (MiB) |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  for name in session plain; do
    awk -v n="$name" '$1 == n' "$work/scen" >"$work/one"
    printf '| %s | %s | %s | %s | %s |\n' "$name" "$(median_col 2 "$work/one")" "$(median_col 3 "$work/one")" "$(median_col 4 "$work/one")" "$(median_col 5 "$work/one")"
  done
  awk '$1 == "session" { s[++i] = $4 } $1 == "plain" { p[++j] = $4 } END { for (k = 1; k <= i; k++) printf "%.4f\n", s[k] / p[k] }' "$work/scen" >"$work/scen-ratios"
  echo
  printf "Median of the rounds' own ratios: CPU per call of a session %.2fx a single request's (goal <= 1.2)\n" "$(median_col 1 "$work/scen-ratios")"
}

for mode in $servers; do
  if [ "$mode" = scenario ]; then
    scenario_case
    continue
  fi
  cpu_goal=1.15
  [ "$mode" = sdk ] || [ "$mode" = sse ] && cpu_goal=1.3
  start_server "$mode"
  # Warm the server up, then one generator at a time.
  "$bin" run --url "$url" -c "$conns" -d 1s -q --no-progress >/dev/null 2>&1 || true
  : >"$work/all"
  for ((k = 0; k < rounds; k++)); do
    : >"$work/round"
    for ((g = 0; g < n; g++)); do
      "run_${gens[(k + g) % n]}" >>"$work/round"
    done
    cat "$work/round" >>"$work/all"
    printf 'round %d: %s\n' $((k + 1)) "$(ratios "$work/round")" >>"$work/per-round"
    awk '$1 == "wrk" { wr = $3; wc = $4 } $1 == "mcpbench" { mr = $3; mc = $4 }
         END { printf "%.4f %.4f\n", mc / wc, mr / wr }' "$work/round" >>"$work/round-ratios"
    if [ -n "$baseline" ]; then
      awk '$1 == "baseline" { br = $3; bc = $4 } $1 == "mcpbench" { mr = $3; mc = $4 }
           END { printf "%.4f %.4f\n", mc / bc, mr / br }' "$work/round" >>"$work/baseline-ratios"
    fi
  done
  stop_server

  # Medians per generator, column by column.
  : >"$work/rows"
  for name in "${gens[@]}"; do
    awk -v n="$name" '$1 == n' "$work/all" >"$work/one"
    {
      printf '%s' "$name"
      for col in 2 3 4 5 6 7; do
        printf ' %s' "$(median_col "$col" "$work/one")"
      done
      echo
    } >>"$work/rows"
  done
  echo
  case "$mode" in
    fixed) echo "### Server: mcpbench serve --fixed-response (canned answers on fasthttp, near-zero server cost)" ;;
    nethttp) echo "### Server: mcpbench serve --fixed-response --fixed-engine net/http (a trivial net/http responder)" ;;
    sdk) echo "### Server: mcpbench serve --stateless --json-response (the Go SDK, its cheapest mode)" ;;
    sse) echo "### Server: mcpbench serve --stateless (the Go SDK answering in SSE streams, as it does by default)" ;;
  esac
  echo
  echo "| generator | requests | requests/s | CPU per request (µs) | user / system (µs) | peak RSS (MiB) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  awk -v e="$engine" '{ name = $1; if (name == "mcpbench") name = "mcpbench (" e ")"; printf "| %s | %d | %.0f | %.2f | %.2f / %.2f | %.1f |\n", name, $2, $3, $4, $6, $7, $5 }' "$work/rows"
  echo
  echo "Medians: $(ratios "$work/rows")"
  echo
  # Within a round wrk and mcpbench run at most a few generators apart,
  # so a round's ratio is spared most of the machine's drift from round
  # to round, which the ratio of the medians above is not.
  printf "Median of the rounds' own ratios: CPU/request %.2fx wrk, throughput %.2fx wrk\n" \
    "$(median_col 1 "$work/round-ratios")" "$(median_col 2 "$work/round-ratios")"
  echo
  if [ -n "$baseline" ]; then
    printf "Against the baseline binary (%s), median of the rounds' own ratios: CPU/request %.2fx, throughput %.2fx\n" \
      "$baseline" "$(median_col 1 "$work/baseline-ratios")" "$(median_col 2 "$work/baseline-ratios")"
    printf 'each round (CPU, throughput): %s\n' "$(tr '\n' ';' <"$work/baseline-ratios")"
    echo
  fi
  sed 's/^/- /' "$work/per-round"
  rm -f "$work/per-round" "$work/round-ratios" "$work/baseline-ratios"
done
