#!/usr/bin/env bash
# Builds mcpbench, at the action's own ref, with the runner's Go (go.mod's
# toolchain line fetches the version it names), into $RUNNER_TEMP and puts
# it on the PATH for the later steps. GOCACHE and GOMODCACHE point into the
# cache the action restores.
set -euo pipefail
src=${GITHUB_ACTION_PATH:?}
bin="${RUNNER_TEMP:?}/mcpbench-bin"
mkdir -p "$bin"
ref=${MCPBENCH_ACTION_REF:-}
commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
ldflags="-X main.version=${ref:-action} -X main.commit=$commit"
(
  cd "$src"
  CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$bin/mcpbench" ./cmd/mcpbench
  go build -trimpath -o "$bin/mcpbench-action-outputs" ./scripts/action/outputs
)
echo "$bin" >> "${GITHUB_PATH:?}"
"$bin/mcpbench" version
