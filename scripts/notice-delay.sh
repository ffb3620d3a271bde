#!/usr/bin/env bash
# The generator's own delay in noticing answers (client.notice_delay: from
# the kernel's receive stamp of an answer to the worker's noticing it) on
# a quiet generator core and on one a CPU hog shares, with the latency
# the report gives (the wire's) and the saturation verdict that follows.
# The canned server (serve --fixed-response) sits on its own core when
# the machine has two, the generator and the hog on core 0.
#
#   scripts/notice-delay.sh [-d SECONDS (3)] [-c "1 8"]
#
# Loopback only; Linux (taskset, receive stamps). Needs jq.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=3
concs="1 8"
while [ $# -gt 0 ]; do
  case "$1" in
    -d) secs=$2; shift 2 ;;
    -c) concs=$2; shift 2 ;;
    *) echo "notice-delay: unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v jq >/dev/null || { echo "notice-delay: needs jq" >&2; exit 2; }
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/mcpbench" ./cmd/mcpbench

server_cpu=1
[ "$(nproc)" -ge 2 ] || server_cpu=0
taskset -c "$server_cpu" "$work/mcpbench" serve --addr 127.0.0.1:0 --fixed-response >"$work/url" 2>/dev/null &
pids+=($!)
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$work/url" | head -1)
url=${url%/}/mcp

echo "server on core $server_cpu, generator on core 0, ${secs}s per row"
echo
echo "| generator core | c | p50 ms | p99 ms | clock | notice p50 ms | notice p99 ms | notice max ms | saturated |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for load in quiet hog; do
  hog=""
  if [ "$load" = hog ]; then
    taskset -c 0 sh -c 'while :; do :; done' &
    hog=$!
    pids+=("$hog")
  fi
  for c in $concs; do
    taskset -c 0 "$work/mcpbench" run --url "$url" -c "$c" -d "${secs}s" --warmup 200 --json-out "$work/r.json" >/dev/null 2>&1 || true
    jq -r --arg load "$load" --arg c "$c" '
      def pt: if .client then . else (.points // [.])[0] end;
      pt | [$load, $c, .p50_ms, .p99_ms, .client.latency_clock,
            (.client.notice_delay.p50_ms // "-"), (.client.notice_delay.p99_ms // "-"), (.client.notice_delay.max_ms // "-"),
            (if .client.saturated then "yes: " + .client.saturation_reason else "no" end)]
      | "| " + (map(tostring) | join(" | ")) + " |"' "$work/r.json"
  done
  if [ -n "$hog" ]; then kill "$hog"; wait "$hog" 2>/dev/null || true; fi
done
