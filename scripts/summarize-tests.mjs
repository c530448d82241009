// Adds up the JSON reports of vitest and Playwright and prints one closing line: "tests: N passed, N failed".
import { existsSync, readFileSync } from 'node:fs';

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
      `${file}: ${r.stats.expected} passed, ${r.stats.unexpected} failed, ${r.stats.skipped} skipped`,
    );
  } else {
    // vitest (jest-compatible); a run that errored outside any test, or ran none, is a failure
    passed += r.numPassedTests;
    failed += r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
    if ((r.success === false || r.numTotalTests === 0) && r.numFailedTests === 0) failed += 1;
    skipped += r.numPendingTests + (r.numTodoTests ?? 0);
    console.log(
      `${file}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`,
    );
  }
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
