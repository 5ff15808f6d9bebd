# Shared by the image scripts: which CLI builds the image, one build at a time, whether it is already here, and the
# steps of a Debian root (debootstrap minbase from the machine's mirror, apt-get inside it). (Sourced, not run.)

RUNTIME=${CONTAINER_RUNTIME:-podman}
FORCE=0
[ "${1:-}" = --force ] && FORCE=1

command -v "$RUNTIME" >/dev/null 2>&1 || { echo "$RUNTIME is not installed (Debian: apt-get install podman runc)" >&2; exit 1; }

# Tests build the tiny image from several processes at once: the first builds it, the others then find it.
exec 9>"${TMPDIR:-/tmp}/gdflow-image-build.lock"
flock 9

already_here() {
  [ "$FORCE" = 0 ] && "$RUNTIME" image inspect "$1" >/dev/null 2>&1
}

# Import a root file system directory as an image, with `--change` instructions (default: CMD ["/bin/sh"]).
# Sorted names and numeric owners; every time set to @0, or with IMAGE_EPOCH set, only times after it brought down
# to it (times from the packages stay: Python's compiled modules are checked against their sources' times). The
# layer is the same from build to build.
import_root() {
  local root=$1 image=$2
  shift 2
  [ "$#" -gt 0 ] || set -- 'CMD ["/bin/sh"]'
  local changes=() change log
  for change in "$@"; do changes+=(--change "$change"); done
  local times=(--mtime=@0)
  [ -n "${IMAGE_EPOCH:-}" ] && times=(--mtime="@$IMAGE_EPOCH" --clamp-mtime)
  log=$(mktemp)
  if ! tar -C "$root" --sort=name "${times[@]}" --owner=0 --group=0 --numeric-owner -c . |
    "$RUNTIME" import "${changes[@]}" - "$image" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
  echo "built $image: $("$RUNTIME" image inspect --format '{{.Id}}' "$image")"
}

# ---- Debian roots ----

need_debootstrap() {
  [ "$(id -u)" = 0 ] || { echo "debootstrap needs root" >&2; exit 1; }
  command -v debootstrap >/dev/null 2>&1 || { echo "debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }
}

# The Debian mirror: $MIRROR, or the machine's own, from its apt sources (deb822 or one-line format).
debian_mirror() {
  local mirror=${MIRROR:-}
  if [ -z "$mirror" ]; then
    mirror=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\)\/*$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
    [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  fi
  echo "${mirror:-http://deb.debian.org/debian}"
}

# A scratch directory for the roots, removed on exit, with $LOG, where the steps' output goes. In a tmpfs when
# /dev/shm is one with room: dpkg syncs every file it unpacks, which on disk made debootstrap take twice as long
# (measured 123 s against 57 s). SCRATCH_PARENT chooses another place.
make_scratch() {
  local parent=${SCRATCH_PARENT:-}
  if [ -z "$parent" ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] &&
    [ "$(df -Pk /dev/shm | awk 'NR == 2 {print $4}')" -gt $((2 * 1024 * 1024)) ]; then
    parent=/dev/shm
  fi
  SCRATCH=$(mktemp -d -p "${parent:-${TMPDIR:-/tmp}}" gdflow-image.XXXXXX)
  LOG=$SCRATCH/build.log
  # Steps run in the background go first: they may still be reading the directory.
  trap 'kill $(jobs -p) 2>/dev/null || true; wait; rm -rf "$SCRATCH"' EXIT
  trap 'exit 130' INT TERM
}

# Run a step, its output in $LOG; on failure show the end of it and stop.
run() { "$@" >>"$LOG" 2>&1 || { tail -20 "$LOG" >&2; exit 1; }; }

# debootstrap --variant=minbase SUITE into ROOT, ready for apt-get inside (services never start there).
minbase() {
  local root=$1 suite=$2 mirror
  mirror=$(debian_mirror)
  mkdir -p "$root"
  # apt inside downloads as its own user (_apt), which must be able to reach the root.
  chmod 755 "$root"
  echo "debootstrap --variant=minbase $suite from $mirror ..."
  run debootstrap --variant=minbase "$suite" "$root" "$mirror"
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
}

apt_install() {
  local root=$1
  shift
  echo "apt-get install $* ..."
  run chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}

# What an image does not need of a root built by minbase: apt's package lists and downloads, the service guard,
# the build machine's name and resolver (the runtime gives every container its own).
finish_root() {
  local root=$1
  run chroot "$root" apt-get clean
  rm -rf "$root"/var/lib/apt/lists/* "$root/usr/sbin/policy-rc.d" "$root/etc/hostname" "$root/etc/resolv.conf"
}
