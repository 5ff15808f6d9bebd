#!/usr/bin/env bash
# The tiny image the tests run jobs in: Debian's busybox-static (a shell and the usual utilities in one static
# binary) in an otherwise empty root, imported with the container CLI. No registry is needed.
#
#   scripts/images/build-tiny.sh [--force]     builds localhost/gdflow-tiny:latest unless it is already there
#   CONTAINER_RUNTIME=docker ...               builds it for docker instead of podman
#   IMAGE=name:tag ...                         under another name
set -euo pipefail
IMAGE=${IMAGE:-localhost/gdflow-tiny:latest}
BUSYBOX=${BUSYBOX:-/bin/busybox}
# shellcheck source=scripts/images/lib.sh
. "$(dirname "$0")/lib.sh"

if already_here "$IMAGE"; then echo "$IMAGE is already here"; exit 0; fi
if ! "$BUSYBOX" --list >/dev/null 2>&1 || ldd "$BUSYBOX" >/dev/null 2>&1; then
  echo "a static busybox is needed at $BUSYBOX (Debian: apt-get install busybox-static)" >&2
  exit 1
fi

ROOT=$(mktemp -d)
trap 'rm -rf "$ROOT"' EXIT
mkdir -p "$ROOT"/{bin,etc,root,tmp,var/tmp,var/data,proc,sys,dev}
chmod 1777 "$ROOT/tmp" "$ROOT/var/tmp"
cp "$BUSYBOX" "$ROOT/bin/busybox"
for applet in $("$BUSYBOX" --list); do
  [ "$applet" = busybox ] || ln -s busybox "$ROOT/bin/$applet"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$ROOT/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$ROOT/etc/group"
# What a job reads to tell this image from the host.
printf 'PRETTY_NAME="gdflow tiny (busybox)"\nNAME="gdflow-tiny"\nID=gdflow-tiny\n' >"$ROOT/etc/os-release"
import_root "$ROOT" "$IMAGE"
