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

# Import a root file system directory as an image, with the image settings given after it (Dockerfile
# instructions such as 'CMD ["/bin/sh"]', the default, or 'ENV A=b'). Sorted names, fixed times and numeric owners:
# the layer is the same from build to build. Every file is root's, unless KEEP_OWNERS=1 keeps the owners the root
# directory has (an image whose service runs as a user of its own). Every time is @0, unless IMAGE_EPOCH is set:
# then only times after it are brought down to it (Python's compiled modules are checked against their sources'
# times, which the packages set).
import_root() {
  local root=$1 image=$2
  shift 2
  local changes=()
  if [ $# = 0 ]; then set -- 'CMD ["/bin/sh"]'; fi
  for change in "$@"; do changes+=(--change "$change"); done
  local owners=(--owner=0 --group=0)
  if [ "${KEEP_OWNERS:-0}" = 1 ]; then owners=(); fi
  local times=(--mtime=@0)
  if [ -n "${IMAGE_EPOCH:-}" ]; then times=(--mtime="@$IMAGE_EPOCH" --clamp-mtime); fi
  local log
  log=$(mktemp)
  if ! tar -C "$root" --sort=name "${times[@]}" "${owners[@]}" --numeric-owner -c . |
    "$RUNTIME" import "${changes[@]}" - "$image" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
  echo "built $image: $("$RUNTIME" image inspect --format '{{.Id}}' "$image")"
}

# The machine's own Debian mirror, from its apt sources (deb822 or one-line format), unless MIRROR names one.
debian_mirror() {
  local mirror=${MIRROR:-}
  [ -n "$mirror" ] || mirror=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\/debian\)\/*$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
  [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  echo "${mirror:-http://deb.debian.org/debian}"
}

# A new directory to build roots in (the caller removes it): in /dev/shm when that is a tmpfs with 2 GB free, since
# dpkg syncs every file it unpacks (on disk, debootstrap took 123 s where it took 57 s there), unless SCRATCH_PARENT
# names another place.
scratch_dir() {
  local parent=${SCRATCH_PARENT:-}
  if [ -z "$parent" ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] &&
    [ "$(df -Pk /dev/shm | awk 'NR == 2 {print $4}')" -gt $((2 * 1024 * 1024)) ]; then
    parent=/dev/shm
  fi
  mktemp -d -p "${parent:-${TMPDIR:-/tmp}}" gdflow-image.XXXXXX
}

# Run a step quietly; when it fails, show the end of its output and stop.
step() {
  local out
  out=$("$@" 2>&1) || { printf '%s\n' "$out" | tail -20 >&2; exit 1; }
}

# A minimal Debian (debootstrap minbase) of SUITE in ROOT, ready for apt_install. Needs root and debootstrap.
debootstrap_root() {
  local root=$1 suite=$2 mirror
  [ "$(id -u)" = 0 ] || { echo "debootstrap needs root" >&2; exit 1; }
  command -v debootstrap >/dev/null 2>&1 || { echo "debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }
  mirror=$(debian_mirror)
  mkdir -p "$root"
  # apt inside downloads as its own user (_apt), which must be able to reach the root.
  chmod 755 "$root"
  echo "debootstrap --variant=minbase $suite from $mirror ..."
  step debootstrap --variant=minbase "$suite" "$root" "$mirror"
  # Services must not start inside the chroot.
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
}

# Nothing of this shell's environment (TMPDIR, proxies of the host) reaches the commands and package scripts inside.
in_root() {
  local root=$1
  shift
  chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

apt_install() {
  local root=$1
  shift
  echo "apt-get install $* ..."
  step in_root "$root" apt-get install -y -q --no-install-recommends "$@"
}

# What an image does not need of a root made by debootstrap_root: apt's caches and lists, the service guard, and the
# build machine's name and resolver (the runtime gives each container its own).
finish_root() {
  local root=$1
  step in_root "$root" apt-get clean
  rm -rf "$root"/var/lib/apt/lists/* "$root/usr/sbin/policy-rc.d" "$root/etc/hostname" "$root/etc/resolv.conf"
}

# debootstrap_root, apt_install PACKAGES, finish_root: a minimal Debian with those packages in ROOT.
minbase_root() {
  local root=$1 suite=$2
  shift 2
  debootstrap_root "$root" "$suite"
  apt_install "$root" "$@"
  finish_root "$root"
}
