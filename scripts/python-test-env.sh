#!/usr/bin/env bash
# Makes the Python test environment (.venv-test/ in the repo root, with the packages of
# test/fixtures/python/requirements.txt) and prints its python's path as the last line of stdout.
# Progress goes to stderr. A second run is a no-op: the venv keeps a hash of the requirements it
# was installed from, and installs again only when that file changed.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# `mcp1` makes .venv-mcp1 from requirements-mcp1.txt instead: the Python SDK 1.x (the 2025-11-25
# revision's tasks), which cannot install beside the 2.x of the main environment.
NAME="${1:-test}"
case "$NAME" in
  test) REQS="$ROOT/test/fixtures/python/requirements.txt" ;;
  mcp1) REQS="$ROOT/test/fixtures/python/requirements-mcp1.txt" ;;
  *) echo "usage: $0 [test|mcp1]" >&2; exit 2 ;;
esac
VENV="$ROOT/.venv-$NAME"
PY="$VENV/bin/python"
STAMP="$VENV/.requirements.sha256"

want="$(sha256sum "$REQS" | cut -d' ' -f1)"
if [ -x "$PY" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
  echo "$PY"
  exit 0
fi

start=$(date +%s)
# A venv left half-made (no pip) by an earlier failed run is made again.
if ! [ -x "$PY" ] || ! "$PY" -m pip --version >/dev/null 2>&1; then
  rm -rf "$VENV"
  echo "Creating $VENV..." >&2
  if ! python3 -m venv "$VENV" >&2; then
    # Debian and Ubuntu ship venv/ensurepip in a separate package.
    rm -rf "$VENV"
    echo "python3 -m venv failed; installing python3-venv with apt-get..." >&2
    apt-get update >&2
    apt-get install -y python3-venv >&2
    python3 -m venv "$VENV" >&2
  fi
fi

echo "Installing $(basename "$REQS") into $VENV..." >&2
rm -f "$STAMP"
"$PY" -m pip install --quiet --disable-pip-version-check -r "$REQS" >&2
echo "$want" > "$STAMP"
echo "Python test environment ready in $(( $(date +%s) - start )) s." >&2
echo "$PY"
