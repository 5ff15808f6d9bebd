#!/usr/bin/env bash
# Local stand-ins for the four public images the CWL v1.2 conformance suite's DockerRequirement tests name, built
# from Debian packages (no container registry is needed, only the Debian archive) and tagged with the suite's names,
# so that those tests run offline under `--executor podman`. They are NOT the real images: each gives what the
# suite's tests use of its original, as below, and nothing more is promised (docs/cwl.md, "Containers offline").
#
#   docker.io/debian:stable-slim  Debian 13 trixie (today's stable): debootstrap minbase from the mirror's trixie
#                                 suite, slimmed as the real image is (no docs but copyright files, no man pages, info,
#                                 locales; dpkg told to leave them out of later installs too), apt lists removed;
#                                 CMD ["bash"]. Differs: packages as of the mirror's trixie suite (no trixie-updates
#                                 or trixie-security, and no apt source for them), built by debootstrap rather than
#                                 debuerreotype.
#   docker.io/python:3-slim       that Debian root plus Debian's python3 (3.13, /usr/bin/python3, and /usr/bin/python
#                                 from python-is-python3) with the whole standard library Debian ships in it, and
#                                 ca-certificates; LANG=C.UTF-8, CMD ["python3"]. Differs: the real image is the newest
#                                 CPython built from source into /usr/local (3.14 or later), with pip; here Debian's
#                                 CPython 3.13 without pip, ensurepip, tkinter, idle or headers.
#   docker.io/bash:4.4            Debian's busybox-static (every applet at the path busybox lists: /bin/sh is its ash)
#                                 plus Debian's bash-static at /usr/local/bin/bash (no /bin/bash, as in the real
#                                 image), ENTRYPOINT ["docker-entrypoint.sh"] with the real image's rule (no arguments,
#                                 or a first one starting with "-": they go to bash), CMD ["bash"]. Differs: bash is
#                                 5.2, not 4.4; Alpine's busybox, musl and apk are not there.
#   docker.io/alpine:latest       Debian's busybox-static alone (applets as above), /etc/passwd with root and nobody;
#                                 CMD ["/bin/sh"]. Differs: busybox 1.37 as Debian configures it (some applets differ
#                                 from Alpine's), no musl libc, no apk, no /etc/alpine-release; /etc/os-release
#                                 names the stand-in.
#
# One debootstrap serves debian and python (python is installed into the root once a copy of it is taken for debian);
# the busybox images share one root the same way (bash is added to alpine's), with the two static binaries from that
# Debian root's apt. Each image is labelled gdflow.stand-in=<what it is>. Needs root, debootstrap and the Debian
# archive. About 1.5 minutes (92-94 s measured on a loaded 2-core machine: docs/cwl.md).
#
#   scripts/images/build-cwl-standins.sh [--force]   builds the four unless all are already there
#   CONTAINER_RUNTIME=docker ...                     builds them for docker instead of podman
#   MIRROR=http://... SUITE=codename ...             another Debian mirror; another suite (trixie: today's stable)
set -euo pipefail
SUITE=${SUITE:-trixie}
DEBIAN_IMAGE=docker.io/debian:stable-slim
PYTHON_IMAGE=docker.io/python:3-slim
BASH_IMAGE=docker.io/bash:4.4
ALPINE_IMAGE=docker.io/alpine:latest
# shellcheck source=scripts/images/lib.sh
. "$(dirname "$0")/lib.sh"

missing=""
for image in "$DEBIAN_IMAGE" "$PYTHON_IMAGE" "$BASH_IMAGE" "$ALPINE_IMAGE"; do
  already_here "$image" || missing="$missing $image"
done
if [ -z "$missing" ]; then echo "the CWL stand-ins are already here"; exit 0; fi
if [ "$FORCE" = 1 ]; then echo "building the CWL stand-ins again (--force)"; else echo "building the CWL stand-ins (missing:$missing)"; fi
SCRATCH=$(scratch_dir)
# The steps run in the background go first: they may still be reading the directory.
trap 'kill $(jobs -p) 2>/dev/null || true; wait; rm -rf "$SCRATCH"' EXIT
trap 'exit 130' INT TERM
PATH_ENV='ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
stand_in() { echo "LABEL gdflow.stand-in=\"$1 (scripts/images/build-cwl-standins.sh), not the real image\""; }

# ---- one Debian root ----
ROOT=${SCRATCH:?}/debian
debootstrap_root "$ROOT" "$SUITE"
# Times in the images: none later than the suite's release date (lib.sh, import_root).
IMAGE_EPOCH=$(date -d "$(sed -n 's/^Date: //p' "$ROOT"/var/lib/apt/lists/*_InRelease | head -1)" +%s)
export IMAGE_EPOCH
# Slim as the real image: dpkg leaves these out of what it installs from now on; what debootstrap put there goes.
printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' 'path-exclude /usr/share/man/*' \
  'path-exclude /usr/share/info/*' 'path-exclude /usr/share/locale/*' 'path-include /usr/share/locale/locale.alias' \
  'path-exclude /usr/share/lintian/*' >"$ROOT/etc/dpkg/dpkg.cfg.d/gdflow-slim"
find "$ROOT/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
find "$ROOT/usr/share/doc" -mindepth 1 -type d -empty -delete
find "$ROOT/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
rm -rf "$ROOT"/usr/share/man/* "$ROOT"/usr/share/info/* "$ROOT"/usr/share/lintian/*
DEBIAN_VERSION=$(cat "$ROOT/etc/debian_version")

# The busybox images' two static binaries, from the same suite.
echo "apt-get download busybox-static bash-static ..."
step in_root "$ROOT" sh -c 'cd /tmp && apt-get download -q busybox-static bash-static'
mkdir -p "$SCRATCH/debs" "$SCRATCH/unpacked"
mv "$ROOT"/tmp/*.deb "$SCRATCH/debs/"
for deb in "$SCRATCH"/debs/*.deb; do dpkg-deb -x "$deb" "$SCRATCH/unpacked"; done
deb_version() { dpkg-deb -f "$SCRATCH"/debs/"$1"_*.deb Version; }

# debian:stable-slim: a copy of the root as it stands (python is installed into the root meanwhile).
debian_image() {
  local copy=$SCRATCH/debian-slim
  finish_root "$copy"
  import_root "$copy" "$DEBIAN_IMAGE" "$PATH_ENV" 'CMD ["bash"]' "$(stand_in "Debian $DEBIAN_VERSION minbase, slimmed")"
}

python_image() {
  apt_install "$ROOT" python3 python-is-python3 ca-certificates
  finish_root "$ROOT"
  local version
  version=$(in_root "$ROOT" python3 -c 'import platform; print(platform.python_version())')
  import_root "$ROOT" "$PYTHON_IMAGE" "$PATH_ENV" 'ENV LANG=C.UTF-8' 'CMD ["python3"]' \
    "$(stand_in "Debian $DEBIAN_VERSION with Debian's Python $version")"
}

# The real bash image's entrypoint rule: `docker run bash:4.4 -c 'echo hi'` runs bash with those arguments.
ENTRYPOINT_SCRIPT='#!/usr/bin/env bash
set -e
if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then set -- bash "$@"; fi
exec "$@"'

# alpine:latest, then bash:4.4 from the same root with bash added.
busybox_images() {
  local box=$SCRATCH/busybox applet busybox bash
  mkdir -p "$box"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,etc,root,home,tmp,var/tmp,proc,sys,dev}
  chmod 1777 "$box/tmp" "$box/var/tmp"
  install -m 755 "$SCRATCH/unpacked/usr/bin/busybox" "$box/bin/busybox"
  for applet in $("$box/bin/busybox" --list-full); do
    case "$applet" in
      */*) [ -e "$box/$applet" ] || [ -L "$box/$applet" ] || ln -s /bin/busybox "$box/$applet" ;;
    esac
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"$box/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$box/etc/group"
  busybox="Debian busybox-static $(deb_version busybox-static)"
  printf 'PRETTY_NAME="gdflow stand-in for alpine:latest (%s)"\nNAME="gdflow stand-in"\nID=gdflow-standin\n' "$busybox" >"$box/etc/os-release"
  import_root "$box" "$ALPINE_IMAGE" "$PATH_ENV" 'CMD ["/bin/sh"]' "$(stand_in "$busybox")"

  install -m 755 "$SCRATCH/unpacked/usr/bin/bash-static" "$box/usr/local/bin/bash"
  printf '%s\n' "$ENTRYPOINT_SCRIPT" >"$box/usr/local/bin/docker-entrypoint.sh"
  chmod 755 "$box/usr/local/bin/docker-entrypoint.sh"
  bash="Debian bash-static $(deb_version bash-static)"
  printf 'PRETTY_NAME="gdflow stand-in for bash:4.4 (%s, %s)"\nNAME="gdflow stand-in"\nID=gdflow-standin\n' "$bash" "$busybox" >"$box/etc/os-release"
  import_root "$box" "$BASH_IMAGE" "$PATH_ENV" 'ENTRYPOINT ["docker-entrypoint.sh"]' 'CMD ["bash"]' \
    "$(stand_in "$bash at /usr/local/bin/bash, $busybox")"
}

# Three images are made while python is installed (2 cores: apt waits on the network, dpkg on the disk).
cp -a "$ROOT" "$SCRATCH/debian-slim"
debian_image &
debian=$!
busybox_images &
box=$!
python_image
wait "$debian"
wait "$box"
