#!/usr/bin/env bash
# CPU per request of scenario sessions against the same calls as a plain
# closed-loop run: the bundled server (stateful, SSE answers) on core 1,
# the generator on core 0 with GOMAXPROCS=1, 16 users/workers, tools/call
# echo. A session is initialize, 10 calls and its DELETE. Interleaved
# rounds (session, plain, session, plain, ...); CPU is the generator's
# user+sys from /usr/bin/time over the requests the report counts.
# A session of one call beside the ten-call one splits a session's CPU
# into its calls and its opening and closing (initialize, the initialized
# notification, DELETE: three exchanges, two of them counted as
# requests), which it prints in plain requests' worth.
#
#   scripts/bench-session-cost.sh [--rounds 5] [-d 5s] [-c 16] [--old BINARY]
#
# With --old, each round runs BINARY's session case too (before/after).
# -c sets the users and workers (16): at 1 no answers come together, so
# the figures move less with other load on the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=5 dur=5s old="" conc=16
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    -d) dur=$2; shift 2 ;;
    -c) conc=$2; shift 2 ;;
    --old) old=$2; shift 2 ;;
    *) echo "bench-session-cost: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x /usr/bin/time ] || { echo "bench-session-cost: needs /usr/bin/time" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "bench-session-cost: needs 2 cores (server and generator pinned apart)" >&2; exit 2; }

. scripts/lib-bench.sh
new=$bin
ten_calls "$work/ten.yaml" ten
ten_calls "$work/one.yaml" one 1
serve 1

# one NAME BIN ARGS...: prints "NAME us_per_request us_per_call requests errors driver dials"
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
print("%s %.1f %.1f %d %d %s %d" % (name, (u + s) / r["requests"] * 1e6, (u + s) / calls * 1e6, r["requests"], r["errors"], r["client"].get("driver"), r["client"].get("dials", -1)))
PY
}

for i in $(seq "$rounds"); do
  one session "$new" --scenario "$work/ten.yaml" --users "$conc"
  one plain "$new" --method tools/call --tool echo --args '{"message":"hi"}' -c "$conc"
  one session-1call "$new" --scenario "$work/one.yaml" --users "$conc"
  if [ -n "$old" ]; then one session-old "$old" --scenario "$work/ten.yaml" --users "$conc"; fi
done | tee "$work/rounds"
echo
echo "## Scenario sessions against plain requests, CPU per request ($conc users or workers, median of $rounds interleaved rounds)"
echo
python3 - "$work/rounds" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, per_req, per_call, n, errs, driver, dials = line.split()
    rows.setdefault(name, []).append((float(per_req), float(per_call), int(errs), driver, int(dials) / int(n) * 1000))
med = lambda name, k: statistics.median(r[k] for r in rows[name])
print("| case | driver | µs per request | µs per tools/call | connects per 1,000 requests | errors |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
for name in rows:
    print("| %s | %s | %.1f | %.1f | %.1f | %d |" % (name, rows[name][0][3], med(name, 0), med(name, 1), med(name, 4), sum(r[2] for r in rows[name])))
print()
plain = med("plain", 0)
print("session / plain, per request: %.2f× (goal at most 1.2×); per tools/call: %.2f×" % (med("session", 0) / plain, med("session", 1) / plain))
# A ten-call session is 12 requests, a one-call session 3: their CPU per
# session differs by nine calls, and what is left of the one-call session
# past its call is the opening and closing.
ten, one = 12 * med("session", 0), 3 * med("session-1call", 0)
call = (ten - one) / 9
fixed = one - call
print("a session's call: %.1f µs (%.2f× a plain request); its opening and closing: %.1f µs, %.1f plain requests' worth for 3 exchanges (2 of them counted as requests)" % (call, call / plain, fixed, fixed / plain))
PY
