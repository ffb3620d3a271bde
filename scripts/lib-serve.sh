# Sourced by the session bench scripts: a scratch folder with mcpbench
# built into it, and the bundled server on a free loopback port, stopped
# and removed when the script exits.
#
#   bench_setup                 sets work (the folder) and bin (the binary)
#   bench_serve [PREFIX...] -- [SERVE ARGS...]
#                               starts "PREFIX $bin serve ARGS" (PREFIX: e.g.
#                               taskset -c 1), sets server_pid and base
#                               (http://127.0.0.1:PORT)

server_pid=""
bench_cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}

bench_setup() {
  work=$(mktemp -d)
  trap bench_cleanup EXIT INT TERM
  go build -o "$work/mcpbench" ./cmd/mcpbench
  bin=$work/mcpbench
}

bench_serve() {
  local prefix=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do prefix+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  "${prefix[@]}" "$bin" serve --addr 127.0.0.1:0 "$@" >"$work/server.out" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do
    grep -q "listening on" "$work/server.out" 2>/dev/null && break
    sleep 0.05
  done
  base="$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$work/server.out" | head -n1)"
  [ -n "$base" ] || { echo "the bundled server did not start: $(cat "$work/server.out")" >&2; exit 1; }
}
