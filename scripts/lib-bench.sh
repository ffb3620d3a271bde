# Shared by the benchmark scripts that start the bundled server (sourced,
# not run): a work folder removed on exit with the server stopped, this
# tree's mcpbench built into it ($bin), and the server's start and stop.

work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT INT TERM
go build -o "$work/mcpbench" ./cmd/mcpbench
bin=$work/mcpbench

# serve CPUS ARGS...: runs "mcpbench serve --addr 127.0.0.1:0 ARGS" on
# CPUS (taskset), waits until it listens and sets $url to its /mcp.
serve() {
  local cpus=$1; shift
  taskset -c "$cpus" "$bin" serve --addr 127.0.0.1:0 "$@" >"$work/server.out" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do
    grep -q "listening on" "$work/server.out" 2>/dev/null && break
    sleep 0.05
  done
  url="$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$work/server.out" | head -n1)/mcp"
}

# stop_server stops the server serve started.
stop_server() {
  kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

# ten_calls FILE NAME [TIMES]: a scenario of ten (or TIMES) tools/call
# echo in a row, the session the scenario cases measure against plain
# calls.
ten_calls() {
  cat >"$1" <<YAML
scenarios:
  - name: $2
    steps:
      - repeat:
          times: ${3:-10}
          steps:
            - call: {tool: echo, args: {message: hi}}
YAML
}
