#!/usr/bin/env bash
# CPU per request of scenario sessions against the same calls as a plain
# closed-loop run: the bundled server (stateful, SSE answers) on core 1,
# the generator on core 0 with GOMAXPROCS=1, 16 users/workers, tools/call
# echo. A session is initialize, 10 calls and its DELETE. Interleaved
# rounds (session, plain, session, plain, ...); CPU is the generator's
# user+sys from /usr/bin/time over the requests the report counts.
#
#   scripts/bench-session-cost.sh [--rounds 5] [-d 5s] [--old BINARY]
#
# With --old, each round runs BINARY's session case too (before/after).
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=5 dur=5s old=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    -d) dur=$2; shift 2 ;;
    --old) old=$2; shift 2 ;;
    *) echo "bench-session-cost: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x /usr/bin/time ] || { echo "bench-session-cost: needs /usr/bin/time" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "bench-session-cost: needs 2 cores (server and generator pinned apart)" >&2; exit 2; }

. scripts/lib-bench.sh
new=$bin
ten_calls "$work/ten.yaml" ten
serve 1

# one NAME BIN ARGS...: prints "NAME us_per_request us_per_call requests errors driver"
one() {
  local name=$1 bin=$2; shift 2
  GOMAXPROCS=1 taskset -c 0 /usr/bin/time -f '%U %S' -o "$work/t" "$bin" run --url "$url" -d "$dur" \
    --no-progress -q --json-out "$work/r.json" "$@" >/dev/null 2>&1
  python3 - "$name" "$work/t" "$work/r.json" <<'PY'
import json, sys
name, tf, rf = sys.argv[1:]
u, s = (float(x) for x in open(tf).read().split()[-2:])
r = json.load(open(rf))
calls = sum(o["requests"] for o in r.get("by_operation") or [] if o.get("method") == "tools/call") or r["requests"]
print("%s %.1f %.1f %d %d %s" % (name, (u + s) / r["requests"] * 1e6, (u + s) / calls * 1e6, r["requests"], r["errors"], r["client"].get("driver")))
PY
}

for i in $(seq "$rounds"); do
  one session "$new" --scenario "$work/ten.yaml" --users 16
  one plain "$new" --method tools/call --tool echo --args '{"message":"hi"}' -c 16
  if [ -n "$old" ]; then one session-old "$old" --scenario "$work/ten.yaml" --users 16; fi
done | tee "$work/rounds"
echo
echo "## Scenario sessions against plain requests, CPU per request (median of $rounds interleaved rounds)"
echo
python3 - "$work/rounds" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, per_req, per_call, n, errs, driver = line.split()
    rows.setdefault(name, []).append((float(per_req), float(per_call), int(errs), driver))
med = lambda name, k: statistics.median(r[k] for r in rows[name])
print("| case | driver | µs per request | µs per tools/call | errors |")
print("| --- | --- | ---: | ---: | ---: |")
for name in rows:
    print("| %s | %s | %.1f | %.1f | %d |" % (name, rows[name][0][3], med(name, 0), med(name, 1), sum(r[2] for r in rows[name])))
print()
print("session / plain, per request: %.2f× (goal at most 1.2×); per tools/call: %.2f×" % (med("session", 0) / med("plain", 0), med("session", 1) / med("plain", 0)))
PY
