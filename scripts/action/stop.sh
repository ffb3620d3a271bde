#!/usr/bin/env bash
# Stops the server server.sh started, if it is still running.
set -uo pipefail
# shellcheck source=scripts/action/common.sh
. "$(dirname "$0")/common.sh"
[ -f "$out/server.pid" ] || exit 0
pid=$(cat "$out/server.pid")
# The whole process group server.sh made, else the one process.
kill -- "-$pid" 2> /dev/null || kill "$pid" 2> /dev/null || exit 0
for _ in $(seq 25); do
  kill -0 "$pid" 2> /dev/null || exit 0
  sleep 0.2
done
kill -9 -- "-$pid" 2> /dev/null || kill -9 "$pid" 2> /dev/null || true
