#!/usr/bin/env bash
# Installs Prometheus from the distribution's packages when it is missing:
# the remote-write test (output/promrw) starts one on loopback with its
# remote-write receiver on, and asks it with PromQL what mcpbench sent.
# Debian and Ubuntu (apt-get) only; elsewhere it says what to install.
set -euo pipefail
if command -v prometheus >/dev/null 2>&1; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-prometheus: no apt-get here; install Prometheus so that 'prometheus' is on PATH" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-prometheus: run as root, or install the prometheus package yourself" >&2
    exit 1
  fi
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
# The package's service is not wanted: the test starts its own server.
$sudo apt-get install -y -qq --no-install-recommends prometheus >&2
command -v prometheus >/dev/null 2>&1 || { echo "install-prometheus: prometheus did not install" >&2; exit 1; }
