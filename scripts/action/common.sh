# shellcheck shell=bash
# Sourced by the action's steps: where the reports go, and how a step
# sets an output. RUNNER_TEMP and GITHUB_OUTPUT come from the runner (or
# the test that stands in for it).
out="${RUNNER_TEMP:?}/mcpbench"
mkdir -p "$out"

# output NAME VALUE: a step output (single-line values only).
output() { printf '%s=%s\n' "$1" "$2" >> "${GITHUB_OUTPUT:?}"; }

# words STRING: the shell words of STRING, one per line, NUL-terminated,
# quotes honoured and nothing expanded (no eval of a workflow's input).
words() {
  [ -n "$1" ] || return 0
  printf '%s' "$1" | xargs printf '%s\0'
}
