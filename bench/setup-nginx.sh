#!/bin/sh
# Installs Debian's nginx for the S3 comparison (bench only; never at test time). Needs root.
set -e
if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then echo "nginx already installed"; exit 0; fi
if [ "$(id -u)" != 0 ]; then echo "not root: cannot install nginx; the bench skips the nginx comparison"; exit 0; fi
apt-get -o DPkg::Lock::Timeout=120 install -y nginx-light || apt-get -o DPkg::Lock::Timeout=120 install -y nginx
