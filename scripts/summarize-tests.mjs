// Adds up the JSON reports of vitest and Playwright and prints one closing line: "tests: N passed, N failed".
import { existsSync, readFileSync } from 'node:fs';

const firstLines = (text) =>
  text
    .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '')
    .split('\n')
    .filter((line) => line.trim())
    .slice(0, 4)
    .join(' | ');

/** Tests of a Playwright report that failed, or passed only on a retry. */
function playwrightProblems(report) {
  const found = [];
  const walk = (suite, path) => {
    for (const spec of suite.specs ?? [])
      for (const test of spec.tests ?? []) {
        if (test.status !== 'unexpected' && test.status !== 'flaky') continue;
        const failure = test.results.find(
          (result) => result.status !== 'passed' && result.status !== 'skipped',
        );
        const message = failure?.error?.message ?? failure?.errors?.[0]?.message ?? '';
        found.push({
          title: [...path, spec.title].join(' › '),
          status: test.status === 'flaky' ? 'flaky' : 'failed',
          error: firstLines(message),
        });
      }
    for (const child of suite.suites ?? []) walk(child, [...path, child.title]);
  };
  for (const suite of report.suites ?? []) walk(suite, [suite.title]);
  return found;
}

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    console.log(`${file}: no report (the run did not finish)`);
    failed += 1;
    continue;
  }
  const r = JSON.parse(readFileSync(file, 'utf8'));
  if (r.stats) {
    // Playwright
    passed += r.stats.expected + (r.stats.flaky ?? 0);
    failed += r.stats.unexpected;
    skipped += r.stats.skipped;
    console.log(
      `${file}: ${r.stats.expected} passed, ${r.stats.unexpected} failed, ${r.stats.skipped} skipped${
        r.stats.flaky ? `, ${r.stats.flaky} flaky (passed on retry)` : ''
      }`,
    );
    // Name what failed or needed a retry, with the first line of its error, here at the end of the
    // log where a CI excerpt shows it.
    for (const { title, status, error } of playwrightProblems(r))
      console.log(`  ${status}: ${title}\n    ${error}`);
  } else {
    // vitest (jest-compatible); a run that errored outside any test, or ran none, is a failure
    passed += r.numPassedTests;
    failed += r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
    if ((r.success === false || r.numTotalTests === 0) && r.numFailedTests === 0) failed += 1;
    skipped += r.numPendingTests + (r.numTodoTests ?? 0);
    console.log(
      `${file}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`,
    );
    // Errors of files and describe blocks (a hook, an import): the JSON report keeps no message for
    // them; scripts/vitest-suite-errors.mjs wrote them beside it.
    const errorsFile = file.replace(/\.json$/, '.errors.json');
    const suiteErrors = existsSync(errorsFile) ? JSON.parse(readFileSync(errorsFile, 'utf8')) : [];
    for (const suite of r.testResults ?? []) {
      if (suite.status === 'failed' && !(suite.assertionResults ?? []).some((t) => t.status === 'failed')) {
        const own = suiteErrors.filter((e) => e.where.startsWith(suite.name)).map((e) => e.message);
        console.log(`  failed: ${suite.name}\n    ${firstLines(suite.message || own.join('\n'))}`);
      }
      for (const t of suite.assertionResults ?? [])
        if (t.status === 'failed')
          console.log(`  failed: ${t.fullName}\n    ${firstLines(t.failureMessages?.[0] ?? '')}`);
    }
    for (const e of suiteErrors.filter((e) => e.where.startsWith('outside any test')))
      console.log(`  error ${e.where}:\n    ${firstLines(e.message)}`);
  }
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
