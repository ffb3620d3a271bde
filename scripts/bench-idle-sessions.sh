#!/usr/bin/env bash
# Idle MCP sessions by the thousand, against the bundled server (stateful,
# SSE answers) on loopback: N users each open a session (initialize, kept
# connection; with --get-stream also its standing GET stream), then think
# until the run ends. Prints whether every session was initialized (with
# --get-stream, whether the server held every session's GET stream at
# once: its /health streams_open), the connections to the server at
# most (with --new-connection-per-session, the default: one a session,
# two with --get-stream), the generator's peak RSS, its RSS and its own
# figure per session (sessions.memory_per_session_bytes), and the
# connections left open to the server once the generator has exited
# (want 0).
#
#   scripts/bench-idle-sessions.sh [--sessions N] [--ramp 30s] [--hold 10s] [--get-stream] [--shared-connections]
#
# The users join over the ramp and each thinks past the run's end (ramp,
# then hold: -d is what follows the ramp), so each runs one session. (With
# -d ramp+hold, as before, the run lasted twice the ramp plus the hold and
# most users ran a second session: that was the "14,907 sessions started"
# of 19,900, the report's count of the sessions begun after the ramp.) At
# a 20 s ramp, 1,000 new sessions a second, on 6e9f56c 6,187 sessions
# failed (4,073 dials and 2,114 initializes timed out after 10 s): the
# default error-rate gate failed the run (exit 1), which printed nothing
# under -q. This tree's run of the same had no errors; the ramp is 30 s
# for room on a loaded machine.
#
# N defaults to the most the open-file limit allows (ulimit -Hn, less the
# 64 files the generator keeps for itself and a margin): 19,900 at 20,000.
set -euo pipefail
cd "$(dirname "$0")/.."

limit=$(ulimit -Hn)
sessions=""
ramp=30s
hold=10s
stream=""
own=--new-connection-per-session
while [ $# -gt 0 ]; do
  case "$1" in
    --sessions) sessions=$2; shift 2 ;;
    --ramp) ramp=$2; shift 2 ;;
    --hold) hold=$2; shift 2 ;;
    --get-stream) stream=--get-stream; shift ;;
    --shared-connections) own=""; shift ;;
    *) echo "bench-idle-sessions: unknown argument $1" >&2; exit 2 ;;
  esac
done
per=1
[ -n "$stream" ] && per=2
[ -n "$sessions" ] || sessions=$(( (limit - 100) / per ))
[ -x /usr/bin/time ] || { echo "bench-idle-sessions: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
command -v ss >/dev/null || { echo "bench-idle-sessions: needs ss (iproute2)" >&2; exit 2; }

. scripts/lib-bench.sh
secs() { case "$1" in *ms) echo "0.${1%ms}" ;; *s) echo "${1%s}" ;; *m) echo $(( ${1%m} * 60 )) ;; esac; }
think=$(awk -v a="$(secs "$ramp")" -v b="$(secs "$hold")" 'BEGIN { print a + b + 5 }')
cat >"$work/idle.yaml" <<YAML
scenarios:
  - name: idle
    steps:
      - ping
      - think: ${think}s
YAML

serve "0-$(( $(nproc) - 1 ))"
base=${url%/mcp}
port=${base##*:}

# The server's open sessions, initialized ones so far and GET streams
# open; "0 0 0" when it does not answer (a failed read would end the
# script under set -e with nothing said).
health() {
  curl -s -m 5 "$base/health" | python3 -c 'import json,sys; h=json.load(sys.stdin); print(h["sessions_open"], h["requests_by_method"].get("notifications/initialized", 0), h.get("streams_open", 0))' 2>/dev/null ||
    echo "0 0 0"
}
read -r _ init0 _ < <(health)
t0=$(date +%s)
/usr/bin/time -f '%M' -o "$work/rss" "$bin" run --url "$base/mcp" --scenario "$work/idle.yaml" \
  --users "$sessions" --ramp-up "$ramp" -d "$hold" \
  $stream $own --no-progress -q --json-out "$work/idle.json" >/dev/null 2>"$work/run.err" &
gen=$!
# The server's count of open sessions and the connections to it, the most
# seen while the sessions think.
peak_open=0 peak_conns=0 peak_streams=0
while kill -0 "$gen" 2>/dev/null; do
  read -r open _ streams < <(health)
  conns=$(ss -Htn state established "( sport = :$port )" | wc -l)
  [ "$open" -gt "$peak_open" ] && peak_open=$open
  [ "$conns" -gt "$peak_conns" ] && peak_conns=$conns
  [ "$streams" -gt "$peak_streams" ] && peak_streams=$streams
  sleep 1
done
# The run runs -q: a failure (errors fail its default error-rate gate,
# exit 1) prints nothing of its own, so its report says what went wrong.
rc=0
wait "$gen" || rc=$?
took=$(( $(date +%s) - t0 ))
sleep 1
read -r open_after init1 _ < <(health)
left=$(ss -Htn state established "( sport = :$port )" | wc -l)
# The generator's RSS with one user: what it holds before any session.
/usr/bin/time -f '%M' -o "$work/rss1" "$bin" run --url "$base/mcp" --scenario "$work/idle.yaml" --users 1 -d 1s \
  --think-scale 0.0001 --no-progress -q >/dev/null 2>&1 || true

echo "## Idle MCP sessions (server: mcpbench serve, stateful; generator: one process)"
echo
echo "Machine: $(nproc) cores, open-file limit $limit; $sessions sessions ${own:-sharing connections} ${stream:-without GET streams}, ramp $ramp, hold $hold; run took ${took}s."
echo
if [ ! -s "$work/idle.json" ]; then
  echo "the run exited $rc without a report:" >&2
  cat "$work/run.err" >&2
  exit 1
fi
python3 - "$work/idle.json" "$(tail -n1 "$work/rss")" "$(tail -n1 "$work/rss1")" "$sessions" "$((init1 - init0 - 1))" "$peak_open" "$peak_conns" "$open_after" "$left" "$rc" "$peak_streams" "${stream:+1}" "${own:+1}" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
rss, rss1, n, init, peak_open, peak_conns, open_after, left, rc, peak_streams, streams, own = (int(a or 0) for a in sys.argv[2:])
s = rep["sessions"]
# (init is the server's count less the generator's own handshake before
# the users; "started" counts the sessions begun after the ramp.)
print("Sessions initialized / asked: %d / %d; %d errors (exit %d); of the sessions begun after the ramp, %d completed, %d failed." % (
    init, n, rep.get("errors", 0), rc, s.get("completed", 0), s.get("failed", 0)))
for kind, count in sorted((rep.get("errors_by_kind") or {}).items()):
    print("  %s: %d, e.g. %s" % (kind, count, (rep.get("error_examples") or {}).get(kind, "")))
for g in rep.get("gates") or []:
    if not g.get("passed"):
        print("  gate %s failed: %s against a limit of %s" % (g.get("name"), g.get("value"), g.get("limit")))
print()
print("| sessions | initialized (server) | open at the server, most | GET streams, most | connections, most | generator peak RSS MiB | RSS per session KB | report: memory_per_session KB (peak_open) | driver | open after | connections after |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
print("| %d | %d | %d | %d | %d | %.1f | %.1f | %.1f (%d) | %s | %d | %d |" % (n, init, peak_open, peak_streams, peak_conns, rss / 1024, (rss - rss1) / n,
      s.get("memory_per_session_bytes", 0) / 1024, s.get("peak_open", 0), rep["client"].get("driver"), open_after, left))
# Every session initialized once and all held at once: the server had all
# of them open together, and the generator counted no error.
ok = rc == 0 and rep.get("errors", 0) == 0 and init == n and peak_open >= n and open_after == 0 and left == 0
# With --get-stream, every session's stream open at once; with a
# connection per session, one connection each and one per stream (the
# most seen may include a session's last one beside the next's first).
if streams:
    ok = ok and peak_streams >= n
if own:
    per = 2 if streams else 1
    ok = ok and n * per <= peak_conns <= n * per + 8
print()
print("verdict:", "ok: every session initialized and held at once; after the run none open, no connection left" if ok else "FAILED")
sys.exit(0 if ok else 1)
PY
