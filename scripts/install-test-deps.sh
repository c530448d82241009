#!/usr/bin/env bash
# Installs the system programs the tests need, from Debian's packages, when they are missing.
# Runs as root only (CI and developer machines here are root); elsewhere it only reports.
set -euo pipefail

# Each feature lists what its tests run in scripts/test-deps.d/*.list: "command-or-path package".
need=()
for list in "$(dirname "$0")"/test-deps.d/*.list; do
  while read -r what package _; do
    case "$what" in '' | '#'*) continue ;; esac
    if [[ "$what" == /* ]]; then
      [ -e "$what" ] && continue
    else
      command -v "$what" >/dev/null 2>&1 && continue
    fi
    need+=("$package")
  done <"$list"
done
# A real PostgreSQL server for the second run of the db and API suites (.ci/run).
[ -x /usr/lib/postgresql/15/bin/initdb ] || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u | sed '/^$/d')

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install-test-deps: missing ${need[*]}; run as root or install them with apt-get" >&2
  exit 0
fi
echo "install-test-deps: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=120 update -qq
apt-get -o DPkg::Lock::Timeout=120 install -y -qq --no-install-recommends "${need[@]}" >/dev/null
