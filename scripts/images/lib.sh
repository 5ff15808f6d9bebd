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

# Import a root file system directory as an image. Sorted names, fixed times and numeric owners: the layer is the
# same from build to build.
import_root() {
  local root=$1 image=$2
  local log
  log=$(mktemp)
  if ! tar -C "$root" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -c . |
    "$RUNTIME" import --change 'CMD ["/bin/sh"]' - "$image" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
  echo "built $image: $("$RUNTIME" image inspect --format '{{.Id}}' "$image")"
}
