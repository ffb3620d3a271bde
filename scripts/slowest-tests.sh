#!/usr/bin/env bash
# The N slowest tests (subtests included) and every package's time, from
# `go test -json` output on stdin or in the files named:
#   go test -json -count=1 ./bench/ > t.json; scripts/slowest-tests.sh -n 10 t.json
# A parallel test's time counts from when it was let run, not from its
# pause, so the figures are what each test itself took.
set -euo pipefail
n=10
if [ "${1:-}" = "-n" ]; then n=$2; shift 2; fi
command -v jq >/dev/null || { echo "slowest-tests: needs jq" >&2; exit 2; }
# go test -json may interleave plain build output; keep the JSON lines.
events=$(cat "$@" | grep '^{' || true)
[ -n "$events" ] || { echo "slowest-tests: no go test -json events in the input" >&2; exit 2; }
echo "slowest $n tests:"
jq -r 'select(.Test != null and (.Action == "pass" or .Action == "fail"))
  | [(.Elapsed | tostring), .Action, (.Package | sub("^github.com/mcpbench/mcpbench/?"; "./")), .Test] | @tsv' <<<"$events" |
  sort -t$'\t' -k1,1 -rn | awk -F'\t' -v n="$n" 'NR <= n { printf "  %8.1f s  %-4s  %-22s %s\n", $1, $2, $3, $4 }'
echo "packages:"
jq -r 'select(.Test == null and (.Action == "pass" or .Action == "fail") and .Elapsed != null)
  | [(.Elapsed | tostring), .Action, (.Package | sub("^github.com/mcpbench/mcpbench/?"; "./"))] | @tsv' <<<"$events" |
  sort -t$'\t' -k1,1 -rn | awk -F'\t' '{ printf "  %8.1f s  %-4s  %s\n", $1, $2, $3 }'
