/**
 * `npm test`'s runner (scripts/run-tests.ts) without running it: which files share a process, which
 * run alone, and in what order the runs start.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { namedProcess, ownProcessReason, plan } from '../../scripts/run-tests.js';

const TEXTS: Readonly<Record<string, string>> = {
  'a/plain-1.test.js': "import { test } from 'node:test';",
  'a/plain-2.test.js': "import { test } from 'node:test';",
  'a/plain-3.test.js': "import { test } from 'node:test';",
  'a/env.test.js': "process.env.MYRIAD_X = '1';",
  'a/long.test.js': '// run-tests: long (many cases)',
  'a/lib-1.test.js': "// run-tests: process no-lib (the same paths)\nprocess.env['MYRIAD_LIB'] = '/nonexistent';",
  'b/lib-2.test.js': "// run-tests: process no-lib (the same paths)\nprocess.env['MYRIAD_LIB'] = '/nonexistent';",
  'b/other.test.js': "// run-tests: process other\nprocess.env['MYRIAD_LIB'] = '/elsewhere';",
  'b/plain-4.test.js': "import { test } from 'node:test';",
};
const read = (file: string): string => TEXTS[file]!;

test('a file names its process with a run-tests: process comment; the environment alone is a reason for a process of its own', () => {
  assert.equal(namedProcess(TEXTS['a/lib-1.test.js']!), 'no-lib');
  assert.equal(namedProcess(TEXTS['a/env.test.js']!), undefined);
  assert.equal(ownProcessReason(TEXTS['a/env.test.js']!), 'sets environment variables');
  assert.equal(ownProcessReason(TEXTS['a/plain-1.test.js']!), undefined);
  assert.equal(ownProcessReason("import { setFlagsFromString } from 'node:v8';\nsetFlagsFromString('--experimental-wasm-relaxed-simd');"), 'changes V8 flags');
});

test('long files first and alone, then shared groups of one folder, then each named process with its files, then the files alone', () => {
  const folders = [
    ['a/plain-1.test.js', 'a/plain-2.test.js', 'a/plain-3.test.js', 'a/env.test.js', 'a/long.test.js', 'a/lib-1.test.js'],
    ['b/lib-2.test.js', 'b/other.test.js', 'b/plain-4.test.js'],
  ];
  assert.deepEqual(plan(folders, read, 2), [
    ['a/long.test.js'],
    ['a/plain-1.test.js', 'a/plain-3.test.js'], ['a/plain-2.test.js'],
    ['b/plain-4.test.js'],
    ['a/lib-1.test.js', 'b/lib-2.test.js'], ['b/other.test.js'],
    ['a/env.test.js'],
  ]);
});
