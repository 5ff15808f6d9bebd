#!/usr/bin/env bash
# The image `gdflow demo --executor podman` runs its tools in: a minimal Debian 12 (debootstrap minbase) with
# fastp, bwa and samtools installed by apt inside it, imported with the container CLI. Needs root (debootstrap),
# debootstrap and the Debian archive (no container registry). About 1-2 minutes.
#
#   scripts/images/build-demo.sh [--force]     builds localhost/gdflow-demo:latest unless it is already there
#   CONTAINER_RUNTIME=docker ...               builds it for docker instead of podman
#   MIRROR=http://... IMAGE=name:tag ...       another Debian mirror, another name
set -euo pipefail
IMAGE=${IMAGE:-localhost/gdflow-demo:latest}
SUITE=${SUITE:-bookworm}
PACKAGES="fastp bwa samtools"
# shellcheck source=scripts/images/lib.sh
. "$(dirname "$0")/lib.sh"

if already_here "$IMAGE"; then echo "$IMAGE is already here"; exit 0; fi
[ "$(id -u)" = 0 ] || { echo "debootstrap needs root" >&2; exit 1; }
command -v debootstrap >/dev/null 2>&1 || { echo "debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }
if [ -z "${MIRROR:-}" ]; then
  # the machine's own Debian mirror, from its apt sources (deb822 or one-line format)
  MIRROR=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\)\/*$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
  [ -n "$MIRROR" ] || MIRROR=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  MIRROR=${MIRROR:-http://deb.debian.org/debian}
fi

ROOT=$(mktemp -d)
LOG=$(mktemp)
trap 'rm -rf "$ROOT" "$LOG"' EXIT
# apt inside downloads as its own user (_apt), which must be able to reach the root.
chmod 755 "$ROOT"
run() { "$@" >>"$LOG" 2>&1 || { tail -20 "$LOG" >&2; exit 1; }; }
echo "debootstrap --variant=minbase $SUITE from $MIRROR ..."
run debootstrap --variant=minbase "$SUITE" "$ROOT" "$MIRROR"
# Services must not start inside the chroot.
printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
chmod 755 "$ROOT/usr/sbin/policy-rc.d"
echo "apt-get install $PACKAGES ..."
run chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $PACKAGES
run chroot "$ROOT" apt-get clean
rm -rf "$ROOT"/var/lib/apt/lists/* "$ROOT/usr/sbin/policy-rc.d"
mkdir -p "$ROOT/var/data"
import_root "$ROOT" "$IMAGE"
