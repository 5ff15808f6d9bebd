# Shared by the image scripts: which CLI builds the image, one build at a time, and whether it is already here.
# (Sourced, not run.)

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
# directory has (an image whose service runs as a user of its own).
import_root() {
  local root=$1 image=$2
  shift 2
  local changes=()
  if [ $# = 0 ]; then set -- 'CMD ["/bin/sh"]'; fi
  for change in "$@"; do changes+=(--change "$change"); done
  local owners=(--owner=0 --group=0)
  if [ "${KEEP_OWNERS:-0}" = 1 ]; then owners=(); fi
  local log
  log=$(mktemp)
  if ! tar -C "$root" --sort=name --mtime=@0 "${owners[@]}" --numeric-owner -c . |
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

# A minimal Debian (debootstrap minbase) of SUITE in ROOT, with PACKAGES installed by apt inside it and apt's caches
# removed. Needs root and debootstrap; the log goes to stderr only when a step fails.
minbase_root() {
  local root=$1 suite=$2
  shift 2
  [ "$(id -u)" = 0 ] || { echo "debootstrap needs root" >&2; exit 1; }
  command -v debootstrap >/dev/null 2>&1 || { echo "debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }
  local mirror log
  mirror=$(debian_mirror)
  log=$(mktemp)
  # apt inside downloads as its own user (_apt), which must be able to reach the root.
  chmod 755 "$root"
  step() { "$@" >>"$log" 2>&1 || { tail -20 "$log" >&2; rm -f "$log"; exit 1; }; }
  echo "debootstrap --variant=minbase $suite from $mirror ..."
  step debootstrap --variant=minbase "$suite" "$root" "$mirror"
  # Services must not start inside the chroot.
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  echo "apt-get install $* ..."
  # Nothing of this shell's environment (TMPDIR, proxies of the host) reaches the scripts of the packages inside.
  local inside=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive)
  step chroot "$root" "${inside[@]}" apt-get install -y -q --no-install-recommends "$@"
  step chroot "$root" "${inside[@]}" apt-get clean
  rm -rf "$root"/var/lib/apt/lists/* "$root/usr/sbin/policy-rc.d" "$log"
}
