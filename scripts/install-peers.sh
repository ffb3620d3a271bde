#!/usr/bin/env bash
# Installs the third-party MCP servers the tests run against, pinned, into
# .run/peers (npm registry only; nothing global): server-everything for the
# interop matrix, server-filesystem and server-memory for the safe-defaults
# tests (real servers whose tools write and delete), and the MCP conformance
# harness, which runs its client scenarios against mcpbench as the client;
# and the TypeScript SDK, whose client record's test drives.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.run/peers
pins=(
  "@modelcontextprotocol/server-everything@2026.8.31"
  "@modelcontextprotocol/server-filesystem@2026.8.31"
  "@modelcontextprotocol/server-memory@2026.8.31"
  "@modelcontextprotocol/conformance@0.1.16"
  "@modelcontextprotocol/sdk@1.32.2"
)
installed() { # name@version
  local name=${1%@*} version=${1##*@}
  grep -qs "\"version\": \"$version\"" "$dir/node_modules/$name/package.json"
}
missing=()
for p in "${pins[@]}"; do installed "$p" || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v npm >/dev/null 2>&1; then
  echo "install-peers: npm not found; the peer-server tests need Node.js and npm" >&2
  exit 1
fi
mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "${pins[@]}" >&2
for p in "${pins[@]}"; do installed "$p" || { echo "install-peers: $p did not install" >&2; exit 1; }; done
