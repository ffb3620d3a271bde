#!/usr/bin/env bash
# Times `make test` on fresh clones of the given refs, in interleaved rounds
# (ref1, ref2, ref1, ref2, ...), and prints each run's wall time, exit code
# and ten slowest tests. For before/after figures on a quiet machine:
#   scripts/time-suite.sh -r 2 13dc74c suite
# Each run is a clone of this repository at the ref, in a temporary folder
# (installs included, as CI on a fresh machine; the Go build cache is the
# machine's). go test's output is kept as JSON (a wrapper given to make as
# GO) so that scripts/slowest-tests.sh can read it; logs stay in the folder
# printed at the start.
set -euo pipefail
rounds=1
if [ "${1:-}" = "-r" ]; then rounds=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: scripts/time-suite.sh [-r ROUNDS] REF..." >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/time-suite.XXXXXX)
echo "time-suite: logs in $work"
# The wrapper: go test with -json into the run's file, every other go
# command as it is. A failing go test is noted and make goes on, so that
# each run times the whole suite; the failures are listed after it.
cat > "$work/go" <<'WRAP'
#!/usr/bin/env bash
if [ "${1:-}" = test ]; then
  shift
  go test -json "$@" >> "$SUITE_JSON" || echo "go test $* exited $?" >> "$SUITE_JSON.failed"
  exit 0
fi
exec go "$@"
WRAP
chmod +x "$work/go"
for round in $(seq "$rounds"); do
  for ref in "$@"; do
    run="$work/$round-${ref//\//_}"
    git clone -q "$here" "$run/repo"
    git -C "$run/repo" checkout -q "$ref"
    start=$(date +%s.%N)
    rc=0
    SUITE_JSON="$run/test.json" make -C "$run/repo" test GO="$work/go" > "$run/make.log" 2>&1 || rc=$?
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    [ -s "$run/test.json.failed" ] && rc=1
    printf '== round %s, %s (%s): make test exit %d, %.0f s wall, load average %s\n' \
      "$round" "$ref" "$(git -C "$run/repo" rev-parse --short HEAD)" "$rc" "$wall" "$(cut -d' ' -f1-3 /proc/loadavg)"
    failed=$(grep -h '^{' "$run/test.json" 2>/dev/null | jq -r 'select(.Action == "fail" and .Test != null) | .Test' | sort -u | tr '\n' ' ' || true)
    [ -z "$failed" ] || echo "failed: $failed"
    "$here/scripts/slowest-tests.sh" -n 10 "$run/test.json" | sed -n '1,11p'
    rm -rf "$run/repo"
  done
done
