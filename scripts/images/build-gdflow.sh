#!/usr/bin/env bash
# A container image of gdflow itself, built without a container registry: a minimal Debian (debootstrap minbase) with
# Debian's nodejs, and this checkout's built package (npm pack) installed into it with npm install -g, imported
# with the container CLI. It runs `gdflow serve` as the user gdflow on the data root /var/lib/gdflow (a volume).
# Needs root (debootstrap), debootstrap, npm (npm pack builds first), a C compiler for better-sqlite3 (npm compiles
# it where no prebuilt binary can be fetched), the Debian archive and the npm registry. 7 to 11 minutes on two busy
# cores, most of it compiling better-sqlite3.
#
#   scripts/images/build-gdflow.sh [--force]   builds localhost/gdflow:<version> (and :latest) unless it is there
#   CONTAINER_RUNTIME=docker ...               builds it for docker instead of podman
#   MIRROR=http://... SUITE=... IMAGE=name     another Debian mirror or release, another name
#
# Debian 13 (trixie) by default: its nodejs is 20, what gdflow needs (Debian 12's is 18). Run it (docs/operating.md):
#   podman run -d --name gdflow -p 8080:8080 -v gdflow-data:/var/lib/gdflow localhost/gdflow:latest
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION=$(node -p 'require("./package.json").version')
NAME=${IMAGE:-localhost/gdflow}
IMAGE="$NAME:$VERSION"
SUITE=${SUITE:-trixie}
# shellcheck source=scripts/images/lib.sh
. scripts/images/lib.sh

if already_here "$IMAGE"; then echo "$IMAGE is already here"; exit 0; fi
command -v npm >/dev/null 2>&1 || { echo "npm is needed to pack and install gdflow" >&2; exit 1; }

ROOT=$(mktemp -d)
WORK=$(mktemp -d)
trap 'rm -rf "$ROOT" "$WORK"' EXIT
# ca-certificates: for a PostgreSQL with sslmode=require and https endpoints; bubblewrap: the sandbox, for a
# container that is given the privileges it needs (docs/operating.md); the rest is Node.
minbase_root "$ROOT" "$SUITE" nodejs ca-certificates bubblewrap
echo "node in the image: $(chroot "$ROOT" node --version)"

echo "npm pack (builds first) ..."
npm pack --pack-destination "$WORK" >"$WORK/pack.log" 2>&1 || { tail -30 "$WORK/pack.log" >&2; exit 1; }
TARBALL=$(ls "$WORK"/gdflow-*.tgz)
# The image's node runs what the host's npm installs: the same major version means the same native module ABI.
host_major=$(node -p 'process.versions.node.split(".")[0]')
image_major=$(chroot "$ROOT" node -p 'process.versions.node.split(".")[0]')
[ "$host_major" = "$image_major" ] || { echo "this node is $host_major, the image's is $image_major: better-sqlite3 would not load" >&2; exit 1; }
echo "npm install -g $(basename "$TARBALL") into the image (compiles better-sqlite3) ..."
LOG="$WORK/npm.log"
npm install -g --prefix "$ROOT/usr/local" --no-audit --no-fund --omit=dev "$TARBALL" >"$LOG" 2>&1 || { tail -30 "$LOG" >&2; exit 1; }

# The service's own user and data root; the data root is where a volume goes.
chroot "$ROOT" useradd --system --home-dir /var/lib/gdflow --shell /usr/sbin/nologin gdflow
mkdir -p "$ROOT/var/lib/gdflow"
chroot "$ROOT" chown gdflow:gdflow /var/lib/gdflow
chmod 750 "$ROOT/var/lib/gdflow"
# The checks below run the image: the tag comes last, so that a failed check leaves no image behind.
CANDIDATE="$NAME:candidate-$$"
trap 'rm -rf "$ROOT" "$WORK"; "$RUNTIME" rm -f -v "gdflow-check-$$" >/dev/null 2>&1; "$RUNTIME" rmi "$CANDIDATE" >/dev/null 2>&1 || true' EXIT
KEEP_OWNERS=1 import_root "$ROOT" "$CANDIDATE" \
  'USER gdflow' \
  'WORKDIR /var/lib/gdflow' \
  'ENV GDFLOW_DATA_DIR=/var/lib/gdflow' \
  'ENV GDFLOW_HOST=0.0.0.0' \
  'ENV GDFLOW_EXECUTOR=host' \
  'EXPOSE 8080' \
  'VOLUME /var/lib/gdflow' \
  'STOPSIGNAL SIGTERM' \
  "LABEL org.opencontainers.image.title=gdflow org.opencontainers.image.version=$VERSION" \
  'ENTRYPOINT ["/usr/local/bin/gdflow"]' \
  'CMD ["serve"]'
# podman asks for 1048576 open files and processes by default, more than a root without CAP_SYS_RESOURCE (a VM's,
# a container's) may raise its limits to: the checks run with this shell's (nproc capped as conmon's is).
nproc=$(ulimit -Hu); { [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; } && nproc=32768
LIMITS=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit "nproc=$nproc:$nproc")
said=$("$RUNTIME" run --rm --network none "${LIMITS[@]}" "$CANDIDATE" --version)
[ "$said" = "$VERSION" ] || { echo "the image's gdflow says '$said', not $VERSION" >&2; exit 1; }
# It serves: gdflow serve (the image's command) answers /healthz inside the container.
"$RUNTIME" run -d --name "gdflow-check-$$" --network none "${LIMITS[@]}" "$CANDIDATE" >/dev/null
health=""
for _ in $(seq 1 60); do
  health=$("$RUNTIME" exec "gdflow-check-$$" node -e 'fetch("http://127.0.0.1:8080/healthz").then((r) => r.text()).then(console.log, () => process.exit(1))' 2>/dev/null) && break
  sleep 1
done
[ -n "$health" ] || { "$RUNTIME" logs "gdflow-check-$$" >&2; echo "gdflow serve did not answer /healthz in the image" >&2; exit 1; }
echo "/healthz in the image: $health"
"$RUNTIME" tag "$CANDIDATE" "$IMAGE" "$NAME:latest"
echo "built $IMAGE (and $NAME:latest): gdflow $said on node $(chroot "$ROOT" node --version)"
