#!/usr/bin/env bash
# `npm test`: every test. Installs missing system prerequisites (when root), runs the unit and API
# suites (vitest), builds the console, runs the browser tests (Playwright + Debian's Chromium),
# and ends with one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
# The real-client suites run mvn a dozen times on short builds, where the JVM's optimising compiler costs more
# than it saves: C1 only halves mvn's CPU time here (a small `mvn package`: 9.5 s → 5.2 s of CPU).
export MAVEN_OPTS="${MAVEN_OPTS:--XX:TieredStopAtLevel=1}"
reports=.test-reports
rm -rf "$reports" && mkdir -p "$reports"
status=0

bash scripts/install-test-deps.sh || status=1

echo "== unit and API tests (database: ${GRANARY_TEST_DATABASE_URL:+PostgreSQL}${GRANARY_TEST_DATABASE_URL:-embedded PGlite})"
GRANARY_TEST_ERRORS_FILE="$reports/unit.errors.json" npx vitest run --reporter=default \
  --reporter=./scripts/vitest-suite-errors.mjs --reporter=json --outputFile.json="$reports/unit.json" || status=1

echo "== console build"
npm run build || status=1

echo "== browser tests"
# CI runs another suite beside the browser tests (one worker each: the browser tests spend most of
# their time waiting on Chromium and the server); its output goes to a file, printed after.
beside_pid=
if [ -n "${GRANARY_TEST_BESIDE_BROWSER:-}" ]; then
  echo "   and beside them: $GRANARY_TEST_BESIDE_BROWSER (output after the browser tests)"
  bash -c "$GRANARY_TEST_BESIDE_BROWSER" >"$reports/beside.log" 2>&1 &
  beside_pid=$!
fi
npx playwright test -c e2e/playwright.config.ts || status=1
if [ -n "$beside_pid" ]; then
  wait "$beside_pid" || status=1
  echo "== $GRANARY_TEST_BESIDE_BROWSER"
  cat "$reports/beside.log"
fi

node scripts/summarize-tests.mjs "$reports/unit.json" "$reports/e2e.json" || status=1
exit $status
