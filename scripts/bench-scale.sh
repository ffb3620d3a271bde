#!/usr/bin/env bash
# Memory and scale of the generator, measured with /usr/bin/time against the
# bundled server's canned answers (--fixed-response) on loopback:
#   - run -c 1000 for SHORT and for LONG: peak resident memory, which the
#     goal wants at most 100 MB and flat within 10% between the two;
#   - run -c 10000 -n 200000 --warmup 10000: ten thousand workers, each
#     with its own connection, and whether every request was counted ok.
#
#   scripts/bench-scale.sh [--short 60s] [--long 600s]
set -euo pipefail
cd "$(dirname "$0")/.."

short=60s
long=600s
while [ $# -gt 0 ]; do
  case "$1" in
    --short) short=$2; shift 2 ;;
    --long) long=$2; shift 2 ;;
    *) echo "bench-scale: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x /usr/bin/time ] || { echo "bench-scale: needs /usr/bin/time (Debian package time)" >&2; exit 2; }

# shellcheck source=lib-bench.sh
. scripts/lib-bench.sh
serve "0-$(( $(nproc) - 1 ))" --fixed-response

# measure NAME ARGS...: one run; prints "NAME rss_mib requests ok errors".
measure() {
  local name=$1; shift
  /usr/bin/time -f '%M' -o "$work/$name.rss" "$bin" run --url "$url" --no-progress -q --json-out "$work/$name.json" "$@" >/dev/null
  awk -v n="$name" -v kb="$(cat "$work/$name.rss")" '
    /^  "requests":/ { gsub(/[^0-9]/, ""); r = $0 }
    /^  "ok":/ { gsub(/[^0-9]/, ""); o = $0 }
    /^  "errors":/ { gsub(/[^0-9]/, ""); e = $0 }
    END { printf "%s %.1f %d %d %d\n", n, kb / 1024, r, o, e }' "$work/$name.json"
}

echo "## mcpbench memory and scale (server: mcpbench serve --fixed-response)"
echo
echo "Machine: $(nproc) cores, $(uname -m), $(go version | cut -d' ' -f3)."
echo
{
  measure "c1000-$short" -c 1000 -d "$short"
  measure "c1000-$long" -c 1000 -d "$long"
  measure "c10000" -c 10000 -n 200000 --warmup 10000
} >"$work/rows"
echo "| run | peak RSS (MiB) | requests | ok | errors |"
echo "| --- | ---: | ---: | ---: | ---: |"
awk '{ printf "| %s | %s | %d | %d | %d |\n", $1, $2, $3, $4, $5 }' "$work/rows"
echo
awk 'NR == 1 { a = $2 } NR == 2 { b = $2 } NR == 3 { okc = ($4 == 200000 && $5 == 0) }
  END {
    d = (b - a) / a * 100
    printf "-c 1000: %.1f MiB then %.1f MiB (%+.1f%%; goal <= 100 MB, flat within 10%%): %s\n", a, b, d, (b <= 95.4 && d <= 10 && d >= -10) ? "met" : "NOT met"
    printf "-c 10000: every one of 200,000 requests ok: %s\n", okc ? "yes" : "NO"
  }' "$work/rows"
