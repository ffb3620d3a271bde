# Shared by the seed-compatible scripts (sourced, not run).

# usage prints the script's header comment.
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

# find_bin prints the mcpbench to run: $MCPBENCH_BIN, else mcpbench on PATH,
# else ./mcpbench.
find_bin() {
  if [ -n "${MCPBENCH_BIN:-}" ]; then
    printf '%s\n' "$MCPBENCH_BIN"
  elif command -v mcpbench >/dev/null 2>&1; then
    command -v mcpbench
  elif [ -x ./mcpbench ]; then
    printf '%s\n' ./mcpbench
  else
    echo "$(basename "$0"): mcpbench not found: set MCPBENCH_BIN, put mcpbench on PATH, or run 'make build'" >&2
    exit 2
  fi
}
