#!/usr/bin/env bash
# What `mcpbench record` adds to a proxied call on loopback: the p50 (and
# p99) of `run --method tools/call --tool echo -c 1` (no errors) against the bundled
# server directly and through record, in interleaved rounds (direct,
# through record, direct, ...), then the median of each and the added
# p50 against the issue's bound of 1 ms. Exit 1 when the median added p50
# is over the bound.
#
#   scripts/record-overhead.sh [-r ROUNDS (3)] [-n REQUESTS (3000)]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3 n=3000
while getopts r:n: opt; do
  case $opt in
    r) rounds=$OPTARG ;;
    n) n=$OPTARG ;;
    *) echo "usage: $0 [-r ROUNDS] [-n REQUESTS]" >&2; exit 2 ;;
  esac
done
# A scratch directory, the binary of this checkout, and what the script
# starts, all gone when it ends.
work=$(mktemp -d)
started=()
trap 'kill "${started[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/mcpbench" ./cmd/mcpbench
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
srv=$(free_port)
"$work/mcpbench" serve --addr "127.0.0.1:$srv" >/dev/null 2>&1 & started+=($!)
"$work/mcpbench" record --listen 127.0.0.1:0 --upstream "http://127.0.0.1:$srv/mcp" --scenario-out "$work/rec.yaml" \
  >"$work/record.out" 2>/dev/null & started+=($!)
for _ in $(seq 100); do grep -q "listening on" "$work/record.out" 2>/dev/null && break; sleep 0.1; done
proxy=$(sed -n 's/.*listening on //p' "$work/record.out")
[ -n "$proxy" ] || { echo "record-overhead: record did not start" >&2; exit 1; }
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$srv") 2>/dev/null && break; sleep 0.1; done
echo "| round | path | requests | p50 ms | p99 ms |"
echo "|---:|---|---:|---:|---:|"
: >"$work/p50s"
for r in $(seq 1 "$rounds"); do
  for path in direct record; do
    url="http://127.0.0.1:$srv/mcp"
    [ "$path" = record ] && url=$proxy
    "$work/mcpbench" run --url "$url" --method tools/call --tool echo --args '{"message": "hi"}' -c 1 -n "$n" -q --json-out "$work/r.json" 2>/dev/null
    python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print("| %s | %s | %d | %.3f | %.3f |" % (sys.argv[2], sys.argv[3], j["requests"], j["p50_ms"], j["p99_ms"]))
open(sys.argv[4], "a").write("%s %s\n" % (sys.argv[3], j["p50_ms"]))' \
      "$work/r.json" "$r" "$path" "$work/p50s"
  done
done
python3 - "$work/p50s" <<'PY'
import statistics, sys
p = {"direct": [], "record": []}
for line in open(sys.argv[1]):
    k, v = line.split()
    p[k].append(float(v))
d, r = statistics.median(p["direct"]), statistics.median(p["record"])
print(f"\nmedian p50: direct {d:.3f} ms, through record {r:.3f} ms, added {r - d:.3f} ms (bound 1 ms)")
sys.exit(0 if r - d <= 1 else 1)
PY
