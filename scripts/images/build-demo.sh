#!/usr/bin/env bash
# The image `gdflow demo --executor podman` runs its tools in: a minimal Debian 12 (debootstrap minbase) with
# fastp, bwa and samtools installed by apt inside it, imported with the container CLI. Needs root (debootstrap),
# debootstrap and the Debian archive (no container registry). 1-2 minutes (48 to 96 s on a loaded 2-core machine).
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
ROOT=$(scratch_dir)
trap 'rm -rf "$ROOT"' EXIT
# shellcheck disable=SC2086
minbase_root "$ROOT" "$SUITE" $PACKAGES
mkdir -p "$ROOT/var/data"
import_root "$ROOT" "$IMAGE"
