#!/usr/bin/env bash
# Starts the server under test (INPUT_SERVER_COMMAND, run by bash in the
# background, its output in the reports' server.log) and waits until
# INPUT_HEALTH_URL answers 2xx, or INPUT_URL answers at all when no health
# URL is given, for up to INPUT_HEALTH_TIMEOUT seconds.
set -euo pipefail
# shellcheck source=scripts/action/common.sh
. "$(dirname "$0")/common.sh"
: "${INPUT_SERVER_COMMAND:?server-command is empty}"
# Job control gives the command a process group of its own, so stop.sh
# ends whatever it started, not only its shell.
set -m
nohup bash -c "$INPUT_SERVER_COMMAND" > "$out/server.log" 2>&1 &
pid=$!
set +m
echo "$pid" > "$out/server.pid"
output pid "$pid"
health=${INPUT_HEALTH_URL:-}
probe=${health:-${INPUT_URL:-}}
if [ -z "$probe" ]; then
  echo "mcpbench: no health-url or url to wait on: going on at once"
  exit 0
fi
deadline=$(( $(date +%s) + ${INPUT_HEALTH_TIMEOUT:-60} ))
while [ "$(date +%s)" -lt "$deadline" ]; do
  if ! kill -0 "$pid" 2> /dev/null; then
    echo "::error::the server command exited before it was healthy"
    tail -n 40 "$out/server.log"
    exit 1
  fi
  if [ -n "$health" ]; then
    curl -fsS -o /dev/null --max-time 2 "$health" 2> /dev/null && exit 0
  else
    # Any HTTP answer will do: a GET on an MCP endpoint is often a 405.
    code=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 2 "$probe" 2> /dev/null || true)
    [ -n "$code" ] && [ "$code" != 000 ] && exit 0
  fi
  sleep 0.2
done
echo "::error::$probe was not healthy within ${INPUT_HEALTH_TIMEOUT:-60}s"
tail -n 40 "$out/server.log"
exit 1
