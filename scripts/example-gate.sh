#!/usr/bin/env bash
# Runs the documented scenario example (docs/examples/coding-agent.yaml, as
# run --help gives it) N times against the bundled server, and fails when
# any run does not pass its own gate (exit 0). Loopback only; the server
# is stopped at the end.
#   scripts/example-gate.sh [RUNS] [DURATION]    (default 20 runs of 8s)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20} duration=${2:-8s}
bin=${MCPBENCH_BIN:-./mcpbench}
[ -x "$bin" ] || go build -o "$bin" ./cmd/mcpbench
addr=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print("127.0.0.1:%d" % s.getsockname()[1])')
out=$(mktemp -d)
"$bin" serve --addr "$addr" --capacity 16 --service-time 10ms >"$out/serve.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; rm -rf "$out"' EXIT
for _ in $(seq 50); do curl -fsS "http://$addr/health" >/dev/null 2>&1 && break; sleep 0.1; done
failed=0
for i in $(seq "$runs"); do
  code=0
  "$bin" run --url "http://$addr/mcp" --scenario docs/examples/coding-agent.yaml --users 8 --ramp-up 1s \
    -d "$duration" -q --no-progress --json-out "$out/run-$i.json" >"$out/run-$i.out" 2>&1 || code=$?
  errors=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("errors", "?"))' "$out/run-$i.json" 2>/dev/null || echo "?")
  echo "run $i: exit $code, errors $errors"
  if [ "$code" -ne 0 ]; then failed=$((failed + 1)); cat "$out/run-$i.out" >&2; fi
done
echo "$((runs - failed)) of $runs runs passed their gate"
[ "$failed" -eq 0 ]
