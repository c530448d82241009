#!/usr/bin/env bash
# The db and API suites (vitest project `server`) again on a real PostgreSQL server started here on
# loopback, then stopped. Arguments go to vitest (e.g. --maxWorkers=1). Exit status: the suite's.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
pgdir=$(mktemp -d /tmp/granary-ci-pg.XXXXXX)
if url=$(bash scripts/postgres.sh start "$pgdir"); then
  GRANARY_TEST_DATABASE_URL="$url" GRANARY_TEST_ERRORS_FILE=.test-reports/unit-postgres.errors.json \
    npx vitest run --project server --project server-isolated "$@" \
    --reporter=default --reporter=./scripts/vitest-suite-errors.mjs --reporter=json --outputFile.json=.test-reports/unit-postgres.json || status=1
else
  echo "could not start PostgreSQL" >&2
  status=1
fi
bash scripts/postgres.sh stop "$pgdir"
exit $status
