#!/usr/bin/env bash
# Mode ab: mcpbench ab of the base's server (A, INPUT_BASE_COMMAND) against
# the one under test (B, INPUT_NEW_COMMAND), both started by mcpbench on
# this runner with a free port each, with the flags of INPUT_ARGS. Writes
# ab.json, ab.md, ab.html and ab.xml (and each server's output beside
# them), puts the Markdown in the step summary, and sets verdict: pass, fail
# (a gated metric regressed, or with --fail-on-inconclusive was left
# undecided) or error. Fails the step on fail unless INPUT_FAIL_ON_GATE is
# false, and on error.
set -euo pipefail
# shellcheck source=scripts/action/common.sh
. "$(dirname "$0")/common.sh"
if [ -z "${INPUT_BASE_COMMAND:-}" ] || [ -z "${INPUT_NEW_COMMAND:-}" ]; then
  echo "::error::mode ab needs base-command and new-command (each with a {port})"
  output verdict error
  exit 2
fi
extra=()
while IFS= read -r -d '' w; do extra+=("$w"); done < <(words "${INPUT_ARGS:-}")
cmd=(mcpbench ab --a-cmd "$INPUT_BASE_COMMAND" --b-cmd "$INPUT_NEW_COMMAND"
  --json-out "$out/ab.json" --md-out "$out/ab.md" --html-out "$out/ab.html" --junit-out "$out/ab.xml"
  ${extra[@]+"${extra[@]}"})
echo "mcpbench: ${cmd[*]}"
code=0
"${cmd[@]}" || code=$?
[ ! -f "$out/ab.md" ] || cat "$out/ab.md" >> "${GITHUB_STEP_SUMMARY:?}"
[ ! -f "$out/ab.json" ] || output report "$out/ab.json"
case "$code" in
  0) verdict=pass ;;
  1) verdict=fail; echo "::error::mcpbench ab: the new server regressed against the base (see the summary)" ;;
  *) echo "::error::mcpbench ab exited $code (usage, a server that did not start, or a failed measurement)"; output verdict error; exit "$code" ;;
esac
output verdict "$verdict"
echo "mcpbench: verdict $verdict"
if [ "$verdict" = fail ] && [ "${INPUT_FAIL_ON_GATE:-true}" != false ]; then
  exit 1
fi
