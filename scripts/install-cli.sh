#!/usr/bin/env bash
# Put `gdflow` on the PATH: a small launcher script in a bin directory (default /usr/local/bin, through sudo
# when not writable) that runs this checkout's built CLI with the node that ran this script, so that it keeps
# working when another node comes first in PATH. Run again after moving the checkout. Usage:
#   scripts/install-cli.sh [BIN_DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN_DIR="${1:-/usr/local/bin}"
NODE="$(command -v node)"
CLI="$ROOT/dist/src/cli/main.js"
[ -f "$CLI" ] || { echo "install-cli.sh: $CLI is missing: run 'npm run build' first" >&2; exit 1; }

SUDO=""
if [ ! -w "$BIN_DIR" ] && [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
tmp="$(mktemp)"
printf '#!/bin/sh\n# gdflow launcher written by %s/scripts/install-cli.sh\nexec "%s" "%s" "$@"\n' "$ROOT" "$NODE" "$CLI" >"$tmp"
chmod 755 "$tmp"
$SUDO mkdir -p "$BIN_DIR"
$SUDO mv "$tmp" "$BIN_DIR/gdflow"
echo "gdflow installed as $BIN_DIR/gdflow"
