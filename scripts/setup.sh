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
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[dev]'
