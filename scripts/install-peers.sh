#!/usr/bin/env bash
# Installs the third-party MCP servers the interoperability tests run
# against, pinned, into .run/peers (npm registry only; nothing global).
set -euo pipefail
cd "$(dirname "$0")/.."
version=2026.8.31
dir=.run/peers
entry=$dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js
if [ -f "$entry" ] && grep -q "\"version\": \"$version\"" "$dir/node_modules/@modelcontextprotocol/server-everything/package.json"; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "install-peers: npm not found; the server-everything interop cells need Node.js and npm" >&2
  exit 1
fi
mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/server-everything@$version" >&2
test -f "$entry"
