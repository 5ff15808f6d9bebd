#!/usr/bin/env bash
# Set up a fresh Debian/Ubuntu machine for gdflow: the system packages jobs and the demo need,
# the npm packages, and the build. Safe to run again. Uses sudo for apt-get when not root.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# bubblewrap: the job sandbox; samtools (with wgsim), bwa, fastp: the demo pipeline's tools; g++ (with cc):
# better-sqlite3 and the native job launcher; e2fsprogs: chattr, for the tasks directory's placement hint;
# postgresql: the throwaway servers the PostgreSQL store tests start (gdflow itself can use any PostgreSQL);
# podman, runc: --executor podman (runc named here so that apt picks it rather than crun, which fails on a
# hybrid cgroup layout); debootstrap, busybox-static: the images of scripts/images/ (the demo's, the tests');
# slurm-wlm (with munge): --executor slurm and the throwaway cluster of scripts/slurm/ the Slurm tests start;
# chromium: the headless browser the web console's tests drive (playwright-core), fonts-wqy-microhei: a Chinese font
# for its screenshots in Chinese; nginx, openssl: the reverse proxy with TLS (deploy/nginx/) and the throwaway CA of the
# test that runs gdflow behind it (the test runs its own nginx in the foreground; the package's service is not used);
# cwltool (python3-setuptools: it fails to start without it): the reference CWL runner the CWL tests check exported
# documents and the conformance suite with (it runs JavaScript with the machine's node); python-is-python3: the suite's
# tools call `python`, which a CWL run without containers finds on the host, under bwrap as under cwltool.
PACKAGES="bubblewrap samtools bwa fastp make g++ python3 ca-certificates e2fsprogs postgresql podman runc debootstrap busybox-static slurm-wlm chromium fonts-wqy-microhei nginx openssl cwltool python3-setuptools python-is-python3"
missing=""
for p in $PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
  # shellcheck disable=SC2086
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi

# better-sqlite3 compiles from source where no prebuilt binary can be downloaded (about 2 minutes).
npm ci --no-audit --no-fund
npm run build
# The README and the demo's last lines say `gdflow ...`: put it on the PATH (/usr/local/bin; GDFLOW_BIN_DIR moves it).
scripts/install-cli.sh "${GDFLOW_BIN_DIR:-/usr/local/bin}"
echo "gdflow is set up: try 'npm run demo', or 'gdflow --help'"
