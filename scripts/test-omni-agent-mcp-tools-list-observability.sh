#!/usr/bin/env bash
# Drop-in for the seed's one-shot tools/list observability probe: takes its
# flags and runs `mcpbench probe`, which does health (before and after, with
# cache deltas), server info, the tools/list payload audit, a sequential
# profile in send order, two concurrent benchmarks and the log scan.
#
# Usage: test-omni-agent-mcp-tools-list-observability.sh [--base-url URL]
#   [--timeout-secs N] [--sequential-samples N] [--sequential-sleep-ms MS]
#   [--bench-small-total N] [--bench-small-concurrency N]
#   [--bench-large-total N] [--bench-large-concurrency N]
#   [--log-file FILE] [--allow-request-errors]
#   [--json-out FILE] [--markdown-out FILE] [any other `mcpbench probe` flag]
#
# Defaults: --base-url http://127.0.0.1:3002, reports in
# .run/reports/mcp-tools-list-observability.{json,md}. The mcpbench binary is
# $MCPBENCH_BIN, else mcpbench on PATH, else ./mcpbench.
set -euo pipefail

# shellcheck source=lib-seed.sh
. "$(dirname "$0")/lib-seed.sh"

url="" json_out="" md_out=""
args=("$@")
i=0
while [ $i -lt ${#args[@]} ]; do
  a=${args[$i]}
  next=${args[$((i + 1))]:-}
  case "$a" in
    -h | --help) usage; exit 0 ;;
    --base-url | --url) url=$next; i=$((i + 1)) ;;
    --base-url=* | --url=*) url=${a#*=} ;;
    --json-out) json_out=$next; i=$((i + 1)) ;;
    --json-out=*) json_out=${a#*=} ;;
    --markdown-out | --md-out) md_out=$next; i=$((i + 1)) ;;
    --markdown-out=* | --md-out=*) md_out=${a#*=} ;;
  esac
  i=$((i + 1))
done

bin=$(find_bin)
extra=()
[ -n "$url" ] || extra+=(--base-url http://127.0.0.1:3002)
[ -n "$json_out" ] || extra+=(--json-out .run/reports/mcp-tools-list-observability.json)
[ -n "$md_out" ] || extra+=(--markdown-out .run/reports/mcp-tools-list-observability.md)
exec "$bin" probe "$@" ${extra[@]+"${extra[@]}"}
