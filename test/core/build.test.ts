/**
 * npm test's build (scripts/build.mjs) on a tree of its own: a copy of the script and tsconfig.json
 * beside a few sources, TypeScript from this checkout. It writes ES modules (not CommonJS) with their
 * source maps, leaves type-only imports out, transpiles again only what changed, and refuses a file
 * with a syntax error by name (exit 1) while writing the rest.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

test('scripts/build.mjs: ES modules and maps, type-only imports dropped, only changed files again, a syntax error named', () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-build-'));
  try {
    for (const d of ['scripts', 'src', 'test', 'examples', 'node_modules']) mkdirSync(join(dir, d));
    copyFileSync(join(root, 'scripts', 'build.mjs'), join(dir, 'scripts', 'build.mjs'));
    copyFileSync(join(root, 'tsconfig.json'), join(dir, 'tsconfig.json'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    symlinkSync(join(root, 'node_modules', 'typescript'), join(dir, 'node_modules', 'typescript'), 'dir');
    writeFileSync(join(dir, 'src', 'a.ts'), "export interface Shape { n: number }\nexport const twice = (s: Shape): number => 2 * s.n;\n");
    writeFileSync(join(dir, 'test', 'b.ts'), "import { twice, type Shape } from '../src/a.js';\nconst s: Shape = { n: 3 };\nexport const six: number = twice(s);\n");
    const build = () => spawnSync(process.execPath, [join(dir, 'scripts', 'build.mjs')], { encoding: 'utf8' });
    let run = build();
    assert.equal(run.status, 0, run.stderr);
    const b = readFileSync(join(dir, 'dist', 'test', 'b.js'), 'utf8');
    assert.match(b, /^import \{ twice \} from '\.\.\/src\/a\.js';$/m, b);
    assert.doesNotMatch(b, /require\(|exports\.|Shape/);
    assert.ok(existsSync(join(dir, 'dist', 'src', 'a.js.map')));
    // A changed source is transpiled again, the others not; a syntax error: exit 1, the file and line
    // named, the other files still written.
    const before = statSync(join(dir, 'dist', 'src', 'a.js')).mtimeMs;
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'test', 'b.ts'), later, later);
    writeFileSync(join(dir, 'examples', 'bad.ts'), 'export const x = ;\n');
    writeFileSync(join(dir, 'examples', 'good.ts'), 'export const y = 1;\n');
    run = build();
    assert.equal(run.status, 1);
    assert.match(run.stderr, /examples\/bad\.ts\(1,\d+\): error TS\d+/);
    assert.ok(!existsSync(join(dir, 'dist', 'examples', 'bad.js')));
    assert.ok(existsSync(join(dir, 'dist', 'examples', 'good.js')));
    assert.equal(statSync(join(dir, 'dist', 'src', 'a.js')).mtimeMs, before, 'an unchanged source is not written again');
    assert.ok(statSync(join(dir, 'dist', 'test', 'b.js')).mtimeMs > before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
