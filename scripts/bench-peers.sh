#!/usr/bin/env bash
# Side by side in one run, against the same server, body, concurrency and
# duration: mcpbench, wrk and hey. For each generator: requests/s, CPU per
# request (user+system from /usr/bin/time over requests sent) and peak
# memory. Prints a Markdown table with the ratios of the performance goal
# (mcpbench CPU/request <= 1.5x wrk; throughput >= 0.8x wrk and >= 1.5x hey).
#
#   scripts/bench-peers.sh [-c CONNS] [-d SECONDS] [-r ROUNDS (5)] [--server fixed|nethttp|sdk]
#
# A shared 2-core machine varies by 10-20% from one 5-second run to the
# next, so the generators run in ROUNDS interleaved rounds (the order
# rotating, so none always goes first) and the table shows each one's
# median; every round's ratios are printed too.
#
# Loopback only. wrk and hey come from Debian's packages when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

conns=64
secs=5
rounds=5
servers="fixed nethttp sdk"
while [ $# -gt 0 ]; do
  case "$1" in
    -c) conns=$2; shift 2 ;;
    -d) secs=$2; shift 2 ;;
    -r) rounds=$2; shift 2 ;;
    --server) servers=$2; shift 2 ;;
    *) echo "bench-peers: unknown argument $1" >&2; exit 2 ;;
  esac
done

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

work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

go build -o "$work/mcpbench" ./cmd/mcpbench
bin=$work/mcpbench

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

start_server() { # $1: fixed | nethttp | sdk
  local args=(--addr 127.0.0.1:0 --tools 8)
  case "$1" in
    fixed) args+=(--fixed-response) ;;
    nethttp) args+=(--fixed-response --fixed-engine net/http) ;;
    sdk) args+=(--stateless --json-response) ;;
  esac
  "$bin" serve "${args[@]}" >"$work/server.out" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do
    grep -q "listening on" "$work/server.out" 2>/dev/null && break
    sleep 0.05
  done
  url="$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$work/server.out" | head -n1)/mcp"
}

stop_server() {
  kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

# timed NAME CMD...: runs CMD under /usr/bin/time, leaves its output in
# $work/NAME.out and "user sys maxrss_kb" in $work/NAME.time.
timed() {
  local name=$1; shift
  /usr/bin/time -f '%U %S %M' -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err"
}

row() { # name requests: "name requests rps cpu_us rss_mib"
  local name=$1 requests=$2
  read -r user sys rss <"$work/$name.time"
  awk -v n="$name" -v r="$requests" -v s="$secs" -v u="$user" -v y="$sys" -v m="$rss" \
    'BEGIN { if (r <= 0) { print "bench-peers: " n " sent no requests" > "/dev/stderr"; exit 1 }
             printf "%s %d %.0f %.2f %.1f\n", n, r, r / s, (u + y) * 1e6 / r, m / 1024 }'
}

run_wrk() {
  timed wrk wrk -t1 -c "$conns" -d "${secs}s" -s "$work/post.lua" "$url"
  row wrk "$(awk '/requests in/ {print $1}' "$work/wrk.out")"
}

run_hey() {
  timed hey hey -z "${secs}s" -c "$conns" -m POST -T application/json \
    -H "Accept: application/json, text/event-stream" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" \
    -D "$work/body.json" "$url"
  row hey "$(awk '/\[200\]/ {s += $2} END {print s + 0}' "$work/hey.out")"
}

run_mcpbench() {
  timed mcpbench "$bin" run --url "$url" -c "$conns" -d "${secs}s" --no-progress --json-out -
  engine=$(sed -n 's/.*"engine": "\([^"]*\)".*/\1/p' "$work/mcpbench.out" | head -n1)
  row mcpbench "$(sed -n 's/^  "requests": \([0-9]*\),*/\1/p' "$work/mcpbench.out" | head -n1)"
}

# ratios FILE: the goal's ratios from one set of rows.
ratios() {
  awk '
    $1 == "wrk" { wr = $3; wc = $4 }
    $1 == "hey" { hr = $3 }
    $1 == "mcpbench" { mr = $3; mc = $4 }
    END { printf "mcpbench CPU/request = %.2fx wrk (goal <= 1.5); throughput = %.2fx wrk (goal >= 0.8), %.2fx hey (goal >= 1.5)\n", mc / wc, mr / wr, mr / hr }' "$1"
}

echo "## mcpbench vs wrk vs hey: ${conns} connections, ${secs}s, tools/list POST, median of ${rounds} rounds"
echo
echo "Machine: $(nproc) cores, $(uname -m), $(go version | cut -d' ' -f3); server and generators share it."
gens=(wrk hey mcpbench)
for mode in $servers; do
  start_server "$mode"
  # Warm the server up, then one generator at a time.
  "$bin" run --url "$url" -c "$conns" -d 1s -q --no-progress >/dev/null 2>&1 || true
  : >"$work/all"
  for ((k = 0; k < rounds; k++)); do
    : >"$work/round"
    for ((g = 0; g < 3; g++)); do
      "run_${gens[(k + g) % 3]}" >>"$work/round"
    done
    cat "$work/round" >>"$work/all"
    printf 'round %d: %s\n' $((k + 1)) "$(ratios "$work/round")" >>"$work/per-round"
  done
  stop_server

  # Medians per generator, column by column.
  : >"$work/rows"
  for name in "${gens[@]}"; do
    awk -v n="$name" '$1 == n' "$work/all" >"$work/one"
    {
      printf '%s' "$name"
      for col in 2 3 4 5; do
        printf ' %s' "$(cut -d' ' -f"$col" "$work/one" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')"
      done
      echo
    } >>"$work/rows"
  done
  echo
  case "$mode" in
    fixed) echo "### Server: mcpbench serve --fixed-response (canned answers on fasthttp, near-zero server cost)" ;;
    nethttp) echo "### Server: mcpbench serve --fixed-response --fixed-engine net/http (a trivial net/http responder)" ;;
    sdk) echo "### Server: mcpbench serve --stateless --json-response (the Go SDK, its cheapest mode)" ;;
  esac
  echo
  echo "| generator | requests | requests/s | CPU per request (µs) | peak RSS (MiB) |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  awk -v e="$engine" '{ name = $1; if (name == "mcpbench") name = "mcpbench (" e ")"; printf "| %s | %d | %.0f | %.2f | %.1f |\n", name, $2, $3, $4, $5 }' "$work/rows"
  echo
  echo "Medians: $(ratios "$work/rows")"
  echo
  sed 's/^/- /' "$work/per-round"
  rm -f "$work/per-round"
done
