#!/usr/bin/env bash
# `npm test`: every test. Installs missing system prerequisites (when root), runs the unit and API
# suites (vitest), builds the console, runs the browser tests (Playwright + Debian's Chromium),
# and ends with one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
reports=.test-reports
rm -rf "$reports" && mkdir -p "$reports"
status=0

bash scripts/install-test-deps.sh || status=1

echo "== unit and API tests (database: ${GRANARY_TEST_DATABASE_URL:+PostgreSQL}${GRANARY_TEST_DATABASE_URL:-embedded PGlite})"
npx vitest run --reporter=default --reporter=json --outputFile.json="$reports/unit.json" || status=1

echo "== console build"
npm run build || status=1

echo "== browser tests"
npx playwright test -c e2e/playwright.config.ts || status=1

node scripts/summarize-tests.mjs "$reports/unit.json" "$reports/e2e.json" || status=1
exit $status
