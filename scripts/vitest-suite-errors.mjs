// A vitest reporter for what the JSON report loses: the errors of files and describe blocks (a failing
// beforeAll/afterAll, an import that throws) and errors outside any test. The JSON report marks such a
// file failed with an empty message and its tests skipped; this writes the messages to the file named by
// GRANARY_TEST_ERRORS_FILE, which scripts/summarize-tests.mjs prints beside the report's counts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

// biome-ignore lint/style/noDefaultExport: vitest loads a reporter given by path from its default export.
export default class SuiteErrorsReporter {
  onTestRunEnd(testModules, unhandledErrors) {
    const file = process.env.GRANARY_TEST_ERRORS_FILE;
    if (!file) return;
    const found = [];
    const add = (where, errors) => {
      for (const e of errors ?? []) {
        // Vitest stamps an error outside any test with the file (and test) that was running when it was thrown.
        const origin = [e?.VITEST_TEST_PATH, e?.VITEST_TEST_NAME].filter(Boolean).join(' › ');
        found.push({
          where: origin ? `${where} (while ${origin} ran)` : where,
          message: String(e?.stack || e?.message || e),
        });
      }
    };
    for (const module of testModules) {
      add(module.moduleId, module.errors());
      for (const suite of module.children.allSuites())
        add(`${module.moduleId} › ${suite.fullName}`, suite.errors());
    }
    add('outside any test', unhandledErrors);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(found, null, 1));
  }
}
