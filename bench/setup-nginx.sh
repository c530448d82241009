#!/bin/sh
# Installs Debian's nginx for the S3 comparison (bench only; never at test time). Needs root.
set -e
# Also wrk: DESIGN.md wants it for bodies over 64 KiB (autocannon tops out near 60 MiB/s).
if [ "$(id -u)" != 0 ]; then echo "not root: cannot install nginx or wrk; the bench skips or falls back"; exit 0; fi
command -v wrk >/dev/null 2>&1 || apt-get -o DPkg::Lock::Timeout=120 install -y wrk
if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then echo "nginx already installed"; exit 0; fi
apt-get -o DPkg::Lock::Timeout=120 install -y nginx-light || apt-get -o DPkg::Lock::Timeout=120 install -y nginx
