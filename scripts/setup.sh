#!/usr/bin/env bash
# Set up fabricwatch on a Debian machine: system packages (real servers for the demo and
# the tests) and a virtualenv in .venv with the project installed. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(python3 python3-venv python3-pip ca-certificates "$@")
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  echo "fabricwatch setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Debian starts packaged servers as system services; fabricwatch's tests and demo run their
# own copies on other ports and never rely on those.

PY=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
  "$PY" -m venv .venv
fi
# (re)install only when pyproject.toml changed since the last install; pip's and setuptools'
# chatter goes to a log that is shown only when the install fails
STAMP=.venv/.fabricwatch-installed
WANT=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [[ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]]; then
  echo "fabricwatch setup: installing the project into .venv" >&2
  if ! { .venv/bin/python -m pip install -q --upgrade pip && .venv/bin/python -m pip install -q -e '.[dev]'; } \
      >.venv/install.log 2>&1; then
    cat .venv/install.log >&2
    exit 1
  fi
  echo "$WANT" > "$STAMP"
fi
