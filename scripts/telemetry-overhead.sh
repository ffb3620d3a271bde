#!/usr/bin/env bash
# CPU per request of mcpbench run with and without each --out exporter,
# in interleaved rounds against one bundled server on loopback: user+system
# seconds from /usr/bin/time over the report's requests. The exporters
# send to a local Prometheus (remote-write receiver on) when one is on
# PATH, and to a local OTLP endpoint that answers every export with 200.
#
# With -m every run sends a two-operation mix (tools/call echo and
# tools/list), so that the exporters' histograms per operation are in.
#
#   scripts/telemetry-overhead.sh [-r ROUNDS (3)] [-d SECONDS (5)] [-c CONNS (8)] [-m]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3 secs=5 conns=8 mix=
while [ $# -gt 0 ]; do
  case "$1" in
    -r) rounds=$2; shift 2 ;;
    -d) secs=$2; shift 2 ;;
    -c) conns=$2; shift 2 ;;
    -m) mix=1; shift ;;
    *) echo "usage: $0 [-r ROUNDS] [-d SECONDS] [-c CONNS] [-m]" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
go build -o "$work/mcpbench" ./cmd/mcpbench
load=()
if [ -n "$mix" ]; then
  printf '[{"method":"tools/call","tool":"echo","args":{"message":"a"},"weight":1},{"method":"tools/list","weight":1}]' >"$work/mix.json"
  load=(--mix "$work/mix.json")
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
srv=$(free_port)
"$work/mcpbench" serve --addr "127.0.0.1:$srv" --fixed-response >/dev/null 2>&1 & pids+=($!)
otlp=$(free_port)
python3 -c '
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200); self.send_header("Content-Type", "application/x-protobuf"); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()' "$otlp" & pids+=($!)
variants="none otlp"
if command -v prometheus >/dev/null; then
  prom=$(free_port)
  printf 'global:\n  scrape_interval: 1m\n' >"$work/p.yml"
  prometheus --config.file="$work/p.yml" --storage.tsdb.path="$work/data" --web.listen-address="127.0.0.1:$prom" \
    --web.enable-remote-write-receiver --log.level=error >/dev/null 2>&1 & pids+=($!)
  variants="none prometheus-rw otlp"
fi
sleep 3
echo "| round | output | requests | cpu_s | µs CPU/request |"
echo "|---:|---|---:|---:|---:|"
for r in $(seq 1 "$rounds"); do
  for v in $variants; do
    out=()
    case $v in
      prometheus-rw) out=(--out "prometheus-rw=http://127.0.0.1:$prom/api/v1/write") ;;
      otlp) out=(--out "otlp=http://127.0.0.1:$otlp") ;;
    esac
    /usr/bin/time -f "%U %S" -o "$work/time" "$work/mcpbench" run --url "http://127.0.0.1:$srv/mcp" -c "$conns" -d "${secs}s" \
      -q --json-out "$work/r.json" "${load[@]}" "${out[@]}" 2>/dev/null
    read -r u s <"$work/time"
    n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requests"])' "$work/r.json")
    python3 -c 'import sys; r,v,n,u,s=sys.argv[1:]; c=float(u)+float(s); print(f"| {r} | {v} | {n} | {c:.2f} | {c/int(n)*1e6:.2f} |")' "$r" "$v" "$n" "$u" "$s" |
      tee -a "$work/rows"
  done
done
# The median of each output's rounds, and its ratio to the median without.
python3 - "$work/rows" <<'PY'
import statistics, sys
per = {}
for line in open(sys.argv[1]):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    per.setdefault(cells[1], []).append(float(cells[4]))
base = statistics.median(per["none"])
print("\n| output | median µs CPU/request | ratio to none |\n|---|---:|---:|")
for v, xs in per.items():
    m = statistics.median(xs)
    print(f"| {v} | {m:.2f} | {m / base:.3f} |")
PY
