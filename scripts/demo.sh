#!/usr/bin/env bash
# make demo: start the bundled reference server on a free loopback port,
# sweep it (or the server named by MCPBENCH_URL), write the reports to
# .run/reports, and stop the server again.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${MCPBENCH_BIN:-./mcpbench}
out=${OUT_DIR:-.run/reports}
mkdir -p "$out" .run/logs

server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null; true; }
trap cleanup EXIT INT TERM

url=${MCPBENCH_URL:-}
if [ -z "$url" ]; then
  # A server with 8 slots of 20 ms: its knee is at 8 and its ceiling 400 rps.
  "$bin" serve --addr 127.0.0.1:0 --tools 12 --capacity 8 --service-time 20ms \
    --log-file .run/logs/demo-server.log --stats-interval 500ms >.run/logs/demo-server.out 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do
    line=$(head -n1 .run/logs/demo-server.out 2>/dev/null || true)
    case "$line" in *"listening on "*) break ;; esac
    sleep 0.1
  done
  base=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' .run/logs/demo-server.out | head -n1)
  [ -n "$base" ] || { echo "demo: the reference server did not start:"; cat .run/logs/demo-server.out; exit 1; }
  url="$base/mcp"
  echo "demo: reference server at $url (8 slots x 20 ms: knee 8, ceiling 400 rps)"
fi

if "$bin" sweep --help >/dev/null 2>&1; then
  "$bin" sweep --url "$url" --concurrency-values 1,2,4,8,12,16,24,32 --total 400 --warmup 20 \
    --p95-slo-ms 70 --p99-slo-ms 90 --out-dir "$out" --log-file .run/logs/demo-server.log --no-progress
else
  "$bin" run --url "$url" -c 8 -n 1000 --warmup 20 --json-out "$out/demo-run.json" --md-out "$out/demo-run.md" --no-progress
fi
echo "demo: reports in $out:"
ls -1 "$out"
