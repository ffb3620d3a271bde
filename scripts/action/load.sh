#!/usr/bin/env bash
# Runs the load: mcpbench INPUT_MODE (run or sweep) --url INPUT_URL and the
# flags of INPUT_ARGS, writing report.json, report.md and report.html; the
# Markdown goes to the step summary and the headline figures to the step's
# outputs. A gate of the run's own (its SLO, its error rate) is exit 1,
# kept for the gate step; a usage or connection error (2, 3) fails here.
set -euo pipefail
# shellcheck source=scripts/action/common.sh
. "$(dirname "$0")/common.sh"
mode=${INPUT_MODE:-run}
case "$mode" in
  run | sweep) ;;
  *) echo "::error::mode must be run or sweep, not \"$mode\""; output verdict error; exit 2 ;;
esac
cmd=(mcpbench "$mode")
[ -z "${INPUT_URL:-}" ] || cmd+=(--url "$INPUT_URL")
extra=()
while IFS= read -r -d '' w; do extra+=("$w"); done < <(words "${INPUT_ARGS:-}")
# The report flags go before the user's, so a trailing `-- server command`
# (stdio) stays last.
cmd+=(--json-out "$out/report.json" --md-out "$out/report.md" --html-out "$out/report.html" -q --no-progress ${extra[@]+"${extra[@]}"})
echo "mcpbench: ${cmd[*]}"
code=0
"${cmd[@]}" || code=$?
output exit_code "$code"
if [ -f "$out/report.md" ]; then
  cat "$out/report.md" >> "${GITHUB_STEP_SUMMARY:?}"
fi
if [ "$code" -ge 2 ]; then
  echo "::error::mcpbench $mode exited $code (usage, configuration or connection error)"
  output verdict error
  exit "$code"
fi
output report "$out/report.json"
mcpbench-action-outputs "$out/report.json" >> "$GITHUB_OUTPUT"
