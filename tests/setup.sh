#!/usr/bin/env bash
# Installs everything the test suite needs on a fresh machine: the project with its test extras,
# Debian's chromium for the real-browser tests (Playwright's own browser download is not used),
# and Debian's postgresql server binaries for the casebook tests (they start a throwaway cluster).
# The Python packages come at the exact versions of constraints.txt (what the suite ran on).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[test]"
if [ ! -x /usr/bin/chromium ]; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
/usr/bin/chromium --version
if ! compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  # the tests start their own throwaway cluster from these binaries
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
fi
ls /usr/lib/postgresql/*/bin/initdb
