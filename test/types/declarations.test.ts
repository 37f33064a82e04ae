/**
 * The declarations as a user's editor and compiler see them (they exist after the compiler's build,
 * `npm run check`, not after npm test's transpile): the examples compiled as a new user's project
 * would compile them (strict, NodeNext, noUncheckedIndexedAccess, against the shipped .d.ts), and
 * every value export carries a doc comment in the declarations.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as myriad from '../../src/index.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('examples as a user compiles them', () => {
  it("compile as a new user's strict project (NodeNext, noUncheckedIndexedAccess) against the shipped declarations", () => {
    const dir = mkdtempSync(join(tmpdir(), 'myriad-examples-'));
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(root, join(dir, 'node_modules', 'myriad'), 'dir');
    symlinkSync(join(root, 'node_modules', '@types'), join(dir, 'node_modules', '@types'), 'dir');
    const files = readdirSync(join(root, 'examples')).filter((f) => f.endsWith('.ts'));
    for (const f of files)
      writeFileSync(join(dir, f), readFileSync(join(root, 'examples', f), 'utf8').replaceAll("'../src/index.js'", "'myriad'"));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noUncheckedIndexedAccess: true,
        noEmit: true, skipLibCheck: true, types: ['node'],
      },
      files,
    }));
    try {
      execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      assert.fail(`tsc failed:\n${(e as { stdout?: string }).stdout ?? String(e)}`);
    }
  });
});

describe('hover docs', () => {
  it('every value export has a doc comment in the declarations', () => {
    const dist = join(root, 'dist', 'src');
    const text = readdirSync(dist, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.d.ts'))
      .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8')).join('\n');
    const missing = Object.keys(myriad).filter((name) =>
      !new RegExp(`\\*/\\s*export (declare )?(function|const|class|abstract class) ${name}\\b`).test(text));
    assert.deepEqual(missing, []);
  });
  it('the top-level functions are declared functions with the Context doc, not inline import types', () => {
    // index.ts re-exports them from the file generated from the op specs.
    const dts = ['index.d.ts', 'api/top-level.generated.d.ts'].map((f) => readFileSync(join(root, 'dist', 'src', f), 'utf8')).join('\n');
    assert.doesNotMatch(dts, /export declare const \w+: <S extends import\(/);
    assert.match(dts, /\/\*\* Factors A \(potrf\) and solves A X = B[^*]*\*\/\nexport declare function posv<S extends Storage>\(args: CholeskySolveArgs<S>\): InfoResult<S>;/);
  });
});
