#!/usr/bin/env bash
# What SSE answers cost the generator, beside wrk on the same exchange:
# the bundled server answering tools/call echo as a stateless SSE stream,
# a stateful SSE stream and stateless JSON. The server runs on core 1, the
# generator on core 0 with GOMAXPROCS=1 (wrk with one thread), 16
# connections, 5 s, in ROUNDS interleaved rounds (mcpbench and wrk taking
# turns going first). Prints, per server kind, the medians of CPU per
# request (user+system from /usr/bin/time over the requests answered),
# requests/s, the median of the rounds' own ratios, and the connections
# mcpbench opened per 5,000 requests (client.dials in its report).
#
#   scripts/bench-sse.sh [-c CONNS (16)] [-d SECONDS (5)] [-r ROUNDS (3)] [--kinds "stateless-sse stateful-sse stateless-json"]
#
# wrk sends the bytes mcpbench sends, against the stateless servers; it
# has no row against the stateful one, where a session takes each request
# id once and wrk repeats its body. wrk's exchange is checked once with
# curl (200, the media type expected, the echo) before the rounds. Loopback
# only; wrk comes from Debian's packages when missing.
# MCPBENCH_BASELINE=BIN adds another mcpbench binary, run the same way.
set -euo pipefail
cd "$(dirname "$0")/.."

conns=16
secs=5
rounds=3
kinds="stateless-sse stateful-sse stateless-json"
while [ $# -gt 0 ]; do
  case "$1" in
    -c) conns=$2; shift 2 ;;
    -d) secs=$2; shift 2 ;;
    -r) rounds=$2; shift 2 ;;
    --kinds) kinds=$2; shift 2 ;;
    *) echo "bench-sse: unknown argument $1" >&2; exit 2 ;;
  esac
done
for tool in wrk curl taskset; do
  command -v "$tool" >/dev/null 2>&1 && continue
  echo "bench-sse: installing $tool from Debian's packages" >&2
  pkg=$tool
  [ "$tool" = taskset ] && pkg=util-linux
  sudo apt-get install -y -qq "$pkg" >/dev/null
done
[ -x /usr/bin/time ] || sudo apt-get install -y -qq time >/dev/null
if [ "$(nproc)" -ge 2 ]; then
  gen_cpu=0 server_cpu=1
else
  gen_cpu=0 server_cpu=0
fi
baseline=${MCPBENCH_BASELINE:-}

# shellcheck source=lib-bench.sh
. scripts/lib-bench.sh # after the cd above

start_server() { # kind
  case "$1" in
    stateless-sse) serve "$server_cpu" --tools 2 --stateless ;;
    stateless-json) serve "$server_cpu" --tools 2 --stateless --json-response ;;
    *) serve "$server_cpu" --tools 2 ;;
  esac
}

meta='"_meta":{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"mcpbench","version":"(devel)"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},'
# wrk_script KIND: the Lua script, and the curl check of wrk's exchange.
wrk_script() {
  local body='{"jsonrpc":"2.0","method":"tools/call","params":{'"$meta"'"name":"echo","arguments":{"message":"hi"}},"id":3}'
  {
    echo 'wrk.method = "POST"'
    echo "wrk.body = '$body'"
    echo 'wrk.headers["Content-Type"] = "application/json"'
    echo 'wrk.headers["Accept"] = "application/json, text/event-stream"'
    echo 'wrk.headers["Mcp-Protocol-Version"] = "2026-07-28"'
    echo 'wrk.headers["Mcp-Method"] = "tools/call"'
    echo 'wrk.headers["Mcp-Name"] = "echo"'
  } >"$work/post.lua"
  local want=text/event-stream got
  [ "$1" = stateless-json ] && want=application/json
  got=$(curl -s -o "$work/check.body" -w '%{http_code} %{content_type}' -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H 'Mcp-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' \
    -H 'Mcp-Name: echo' -d "$body" "$url")
  case "$got" in
    "200 $want"*) grep -q '"message":"hi"' "$work/check.body" || { echo "bench-sse: wrk's request is not echoed: $(head -c 300 "$work/check.body")" >&2; exit 1; } ;;
    *) echo "bench-sse: wrk's request got $got, want 200 $want" >&2; exit 1 ;;
  esac
}

timed() { # NAME CMD...: "user sys" in NAME.time, stdout in NAME.out
  local name=$1; shift
  /usr/bin/time -f '%U %S' -o "$work/$name.time" taskset -c "$gen_cpu" "$@" >"$work/$name.out" 2>"$work/$name.err"
}

row() { # NAME REQUESTS DIALS: "name cpu_us rps connects_per_5000"
  read -r user sys <"$work/$1.time"
  awk -v n="$1" -v r="$2" -v d="$3" -v s="$secs" -v u="$user" -v y="$sys" \
    'BEGIN { if (r <= 0) { print "bench-sse: " n " got no answers" > "/dev/stderr"; exit 1 }
             printf "%s %.2f %.0f %s\n", n, (u + y) * 1e6 / r, r / s, (d == "-") ? "-" : sprintf("%.0f", d * 5000 / r) }'
}

mcpbench_as() { # NAME BIN
  local name=$1 b=$2
  GOMAXPROCS=1 timed "$name" "$b" run --url "$url" --method tools/call --tool echo --args '{"message":"hi"}' \
    -c "$conns" -d "${secs}s" --no-progress --json-out -
  local requests dials
  requests=$(sed -n 's/^  "ok": \([0-9]*\),*/\1/p' "$work/$name.out" | head -n1)
  dials=$(sed -n 's/.*"dials": \([0-9]*\).*/\1/p' "$work/$name.out" | head -n1)
  row "$name" "${requests:-0}" "${dials:--}"
}
run_mcpbench() { mcpbench_as mcpbench "$bin"; }
run_baseline() { mcpbench_as baseline "$baseline"; }
run_wrk() {
  timed wrk wrk -t1 -c "$conns" -d "${secs}s" -s "$work/post.lua" "$url"
  if grep -q "Non-2xx" "$work/wrk.out"; then
    echo "bench-sse: wrk got errors: $(grep Non-2xx "$work/wrk.out")" >&2
    exit 1
  fi
  row wrk "$(awk '/requests in/ {print $1}' "$work/wrk.out")" -
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
med() { awk -v n="$1" -v c="$2" '$1 == n { print $c }' "$work/all" | median; } # NAME COLUMN

echo "## SSE answers: mcpbench vs wrk, tools/call echo, $conns connections, ${secs}s, median of $rounds interleaved rounds"
echo
echo "Machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1); server on core $server_cpu, generators on core $gen_cpu (GOMAXPROCS=1, wrk -t1)."
echo
echo "Load average before: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
# With a baseline, two more columns: its CPU per request and the median of
# the rounds' own ratios of this tree's mcpbench to it.
bhead="" bsep=""
[ -z "$baseline" ] || { bhead=" baseline CPU/request (µs) | CPU vs baseline |"; bsep=" ---: | ---: |"; }
echo "| server | mcpbench CPU/request (µs) | wrk CPU/request (µs) | CPU ratio | mcpbench req/s | wrk req/s | throughput ratio | mcpbench connects per 5,000 requests |$bhead"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |$bsep"
: >"$work/notes"
for kind in $kinds; do
  start_server "$kind"
  gens=(mcpbench)
  if [ "$kind" != stateful-sse ]; then
    wrk_script "$kind"
    gens+=(wrk)
  fi
  [ -z "$baseline" ] || gens+=(baseline)
  "$bin" run --url "$url" --method tools/call --tool echo --args '{"message":"hi"}' -c "$conns" -d 1s -q --no-progress >/dev/null 2>&1 || true
  : >"$work/all"
  : >"$work/ratios"
  : >"$work/bratios"
  n=${#gens[@]}
  for ((k = 0; k < rounds; k++)); do
    : >"$work/round"
    for ((g = 0; g < n; g++)); do
      "run_${gens[(k + g) % n]}" >>"$work/round"
    done
    cat "$work/round" >>"$work/all"
    awk '$1 == "wrk" { wc = $2; wr = $3 } $1 == "mcpbench" { mc = $2; mr = $3 } END { if (wc) printf "%.4f %.4f\n", mc / wc, mr / wr }' "$work/round" >>"$work/ratios"
    awk '$1 == "baseline" { bc = $2 } $1 == "mcpbench" { mc = $2 } END { if (bc) printf "%.4f\n", mc / bc }' "$work/round" >>"$work/bratios"
  done
  stop_server
  bcols=""
  [ -z "$baseline" ] || bcols=" $(med baseline 2) | $(median <"$work/bratios" | awk '{ printf "%.2fx", $1 }') |"
  if [ -s "$work/ratios" ]; then
    printf '| %s | %s | %s | %.2fx | %s | %s | %.2fx | %s |%s\n' "$kind" "$(med mcpbench 2)" "$(med wrk 2)" \
      "$(cut -d' ' -f1 "$work/ratios" | median)" "$(med mcpbench 3)" "$(med wrk 3)" "$(cut -d' ' -f2 "$work/ratios" | median)" "$(med mcpbench 4)" "$bcols"
  else
    printf '| %s | %s | – | – | %s | – | – | %s |%s\n' "$kind" "$(med mcpbench 2)" "$(med mcpbench 3)" "$(med mcpbench 4)" "$bcols"
  fi
  {
    echo "- $kind, every round (name CPU/request req/s connects per 5,000):"
    sed 's/^/  - /' "$work/all"
  } >>"$work/notes"
done
echo
echo "Ratios are the medians of the rounds' own ratios (mcpbench / wrk, mcpbench / baseline). Load average after: $(cut -d' ' -f1-3 /proc/loadavg)."
cat "$work/notes"
