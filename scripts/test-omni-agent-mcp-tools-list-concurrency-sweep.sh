#!/usr/bin/env bash
# Drop-in for the seed's tools/list concurrency sweep: takes its flags and
# runs `mcpbench sweep`, which measures each concurrency, estimates the knee
# and recommends a cap under the p95/p99 SLO.
#
# Usage: test-omni-agent-mcp-tools-list-concurrency-sweep.sh [--base-url URL]
#   [--total N] [--concurrency-values 40,80,120,160,200]
#   [--p95-slo-ms MS] [--p99-slo-ms MS] [--timeout-secs N]
#   [--warmup-calls N] [--allow-request-errors]
#   [--json-out FILE] [--markdown-out FILE] [any other `mcpbench sweep` flag]
#
# Defaults, as in the seed's example: --base-url http://127.0.0.1:3002,
# --total 1000, --concurrency-values 40,80,120,160,200, --p95-slo-ms 400,
# --p99-slo-ms 800; reports in
# .run/reports/mcp-tools-list-observability-<host>-<port>-concurrency-sweep.{json,md}.
# The mcpbench binary is $MCPBENCH_BIN, else mcpbench on PATH, else ./mcpbench.
set -euo pipefail

# shellcheck source=lib-seed.sh
. "$(dirname "$0")/lib-seed.sh"

# host_port prints "<host>-<port>" of a URL, the seed's report-name part.
host_port() {
  local rest=${1#*://} scheme=${1%%://*} auth host port
  auth=${rest%%/*}
  auth=${auth##*@}
  case "$auth" in
    \[*\]:*) host=${auth%]:*}; host=${host#[}; port=${auth##*]:} ;;
    \[*\]) host=${auth#[}; host=${host%]}; port="" ;;
    *:*) host=${auth%:*}; port=${auth##*:} ;;
    *) host=$auth; port="" ;;
  esac
  if [ -z "$port" ]; then
    if [ "$scheme" = https ]; then port=443; else port=80; fi
  fi
  printf '%s-%s\n' "${host//:/-}" "$port"
}

url="" json_out="" md_out="" levels="" total="" p95="" p99=""
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
    --concurrency-values | --concurrency-range | --rate-values | --rate-range) levels=1; i=$((i + 1)) ;;
    --concurrency-values=* | --concurrency-range=* | --rate-values=* | --rate-range=*) levels=1 ;;
    --total | -n | --duration | -d) total=1; i=$((i + 1)) ;;
    --total=* | --duration=*) total=1 ;;
    --p95-slo-ms) p95=1; i=$((i + 1)) ;;
    --p95-slo-ms=*) p95=1 ;;
    --p99-slo-ms) p99=1; i=$((i + 1)) ;;
    --p99-slo-ms=*) p99=1 ;;
  esac
  i=$((i + 1))
done

bin=$(find_bin)
extra=()
if [ -z "$url" ]; then
  url=http://127.0.0.1:3002
  extra+=(--base-url "$url")
fi
base=.run/reports/mcp-tools-list-observability-$(host_port "$url")-concurrency-sweep
[ -n "$json_out" ] || extra+=(--json-out "$base.json")
[ -n "$md_out" ] || extra+=(--markdown-out "$base.md")
[ -n "$levels" ] || extra+=(--concurrency-values 40,80,120,160,200)
[ -n "$total" ] || extra+=(--total 1000)
[ -n "$p95" ] || extra+=(--p95-slo-ms 400)
[ -n "$p99" ] || extra+=(--p99-slo-ms 800)
exec "$bin" sweep "$@" ${extra[@]+"${extra[@]}"}
