#!/usr/bin/env bash
# Installs headless Chromium from the distribution's packages when it is
# missing: the HTML report tests (report/html_browser_test.go) open every
# kind of page in it. Debian and Ubuntu (apt-get) only; elsewhere it says
# what to install.
set -euo pipefail
for name in chromium chromium-browser google-chrome google-chrome-stable; do
  if command -v "$name" >/dev/null 2>&1; then exit 0; fi
done
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-chromium: no apt-get here; install Chromium (or Chrome) so that 'chromium' is on PATH" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-chromium: run as root, or install the chromium package yourself" >&2
    exit 1
  fi
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
$sudo apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
command -v chromium >/dev/null 2>&1 || { echo "install-chromium: chromium did not install" >&2; exit 1; }
