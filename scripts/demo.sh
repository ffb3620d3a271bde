#!/usr/bin/env bash
# make demo: start the bundled reference server on a free loopback port,
# sweep it (or the server named by MCPBENCH_URL), write the reports to
# $OUT_DIR (default .run/reports) as demo-sweep.{json,md,svg,html}, replacing the
# last demo's, say what the sweep found, and stop the server again.
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
  # 8 handler slots of 20 ms each: at most 8 requests in service, so
  # throughput cannot pass 8 / 20 ms = 400 rps. The sweep measures where
  # this server actually stops scaling.
  : >.run/logs/demo-server.log
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
  echo "demo: reference server at $url: 8 handler slots of 20 ms, so at most 400 rps"
fi

# Fixed names: each demo replaces the last one's reports.
report="$out/demo-sweep"
"$bin" sweep --url "$url" --concurrency-values 1,2,4,8,12,16,24,32 --total 400 --warmup 20 \
  --p95-slo-ms 70 --p99-slo-ms 90 --json-out "$report.json" --md-out "$report.md" --svg-out "$report.svg" --html-out "$report.html" \
  --log-file .run/logs/demo-server.log --no-progress

# The findings, read back from the report so that they cannot disagree with it.
figure() { # the number after "KEY": in the report (the first one)
  sed -n "s/^ *\"$1\": \([0-9.]*\).*/\1/p" "$report.json" | head -n1
}
knee=$(sed -n '/^  "knee": {/,/}/s/^ *"concurrency": \([0-9]*\).*/\1/p' "$report.json")
rec=$(figure recommended_concurrency)
peak=$(figure peak_rps)
echo "demo: the sweep found the knee at concurrency ${knee:-none}, recommends concurrency ${rec:-none}" \
  "and peaked at ${peak%%.*} rps (from $report.json)"
echo "demo: reports in $out:"
ls -1 "$report".*
