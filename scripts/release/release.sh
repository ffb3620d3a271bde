#!/usr/bin/env bash
# make release: mcpbench for every desk (linux, darwin, windows on amd64
# and arm64), static (CGO_ENABLED=0), -trimpath, the version stamped as
# `make build` stamps it, into $OUT (default .run/release) with SHA256SUMS.
# TARGETS narrows the list. The release checks itself, which is why no
# test of make test builds it (the cross builds of a cold cache took 402 s
# of a fresh clone's suite): each binary's build information must say its
# target, static and -trimpath, its bytes must carry the stamp, the one
# this machine can run must say its version, and sha256sum -c must accept
# SHA256SUMS. make release-check runs it into a folder of its own.
set -euo pipefail
cd "$(dirname "$0")/../.."
go=${GO:-go}
out=${OUT:-.run/release}
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
targets=${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}
ldflags="-s -w -X main.version=$version -X main.commit=$commit"

rm -rf "$out"
mkdir -p "$out"
host="$($go env GOHOSTOS)/$($go env GOHOSTARCH)"
for t in $targets; do
  os=${t%/*} arch=${t#*/}
  ext=""
  [ "$os" = windows ] && ext=.exe
  name="mcpbench_${version}_${os}_${arch}${ext}"
  echo "== $name"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch $go build -trimpath -ldflags "$ldflags" -o "$out/$name" ./cmd/mcpbench
  info=$($go version -m "$out/$name")
  for want in "GOOS=$os" "GOARCH=$arch" "CGO_ENABLED=0" "-trimpath=true"; do
    case "$info" in
      *"$want"*) ;;
      *) echo "release: $name's build information lacks $want" >&2; exit 1 ;;
    esac
  done
  for stamp in "$version" "$commit"; do
    grep -aqF -- "$stamp" "$out/$name" || { echo "release: $name does not carry the stamp $stamp" >&2; exit 1; }
  done
  if [ "$t" = "$host" ]; then
    got=$("$out/$name" version)
    case "$got" in
      "mcpbench $version (commit $commit,"*) ;;
      *) echo "release: $name says \"$got\", not version $version commit $commit" >&2; exit 1 ;;
    esac
  fi
done
(cd "$out" && sha256sum mcpbench_* > SHA256SUMS && sha256sum --quiet -c SHA256SUMS)
echo "release: $(wc -l < "$out/SHA256SUMS") binaries of mcpbench $version in $out (SHA256SUMS)"
