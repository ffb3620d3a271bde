#!/usr/bin/env bash
# The gate: the load's own (LOAD_EXIT 1: an SLO or error-rate gate of
# the run or sweep) and, with a baseline report, mcpbench compare under
# the limits given, its table in the step summary. Sets verdict (pass,
# fail, or error) and fails the step on fail unless INPUT_FAIL_ON_GATE is
# false.
set -euo pipefail
# shellcheck source=scripts/action/common.sh
. "$(dirname "$0")/common.sh"
verdict=pass
if [ "${LOAD_EXIT:-0}" = 1 ]; then
  echo "::error::mcpbench: the load missed its own gate (see the summary's gates)"
  verdict=fail
fi
baseline=${INPUT_BASELINE:-}
if [ -z "$baseline" ]; then
  echo "mcpbench: no baseline: the gate is the load's own"
  printf '\n_mcpbench: no baseline report to compare with._\n' >> "${GITHUB_STEP_SUMMARY:?}"
elif [ ! -f "$baseline" ]; then
  echo "::warning::mcpbench: baseline $baseline does not exist: no comparison"
  printf '\n_mcpbench: baseline %s not found, no comparison._\n' "$baseline" >> "${GITHUB_STEP_SUMMARY:?}"
else
  code=0
  mcpbench compare "$baseline" "$out/report.json" \
    --max-p95-regression "${INPUT_MAX_P95_REGRESSION:-10%}" \
    --max-p99-regression "${INPUT_MAX_P99_REGRESSION:-20%}" \
    --max-rps-regression "${INPUT_MAX_RPS_REGRESSION:-10%}" \
    --max-error-rate-increase "${INPUT_MAX_ERROR_RATE_INCREASE:-0.01}" \
    --md-out "$out/compare.md" --json-out "$out/compare.json" \
    --junit-out "$out/compare.xml" --html-out "$out/compare.html" || code=$?
  [ ! -f "$out/compare.md" ] || cat "$out/compare.md" >> "$GITHUB_STEP_SUMMARY"
  case "$code" in
    0) ;;
    1) echo "::error::mcpbench: regression against $baseline (see the summary)"; verdict=fail ;;
    *) echo "::error::mcpbench compare exited $code"; output verdict error; exit "$code" ;;
  esac
fi
output verdict "$verdict"
echo "mcpbench: verdict $verdict"
if [ "$verdict" = fail ] && [ "${INPUT_FAIL_ON_GATE:-true}" != false ]; then
  exit 1
fi
