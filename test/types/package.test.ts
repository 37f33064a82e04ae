/**
 * The package as a consumer gets it, after the compiler's build (`npm run check`): the published
 * declarations compile for a CommonJS TypeScript project without esModuleInterop (no FFI types leak
 * into them), every source map carries the sources it points to, the tarball holds what a user runs,
 * and the LICENSE that package.json names is there.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const dist = join(root, 'dist', 'src');

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(suffix))
    .map((e) => join(e.parentPath, e.name));
}

describe('published package', () => {
  it('a CommonJS TypeScript consumer without esModuleInterop compiles against the shipped .d.ts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'myriad-cjs-'));
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(root, join(dir, 'node_modules', 'myriad'), 'dir');
    writeFileSync(join(dir, 'index.ts'), [
      "import { potrf, strided, open, MyriadError, type MultiDeviceContext } from 'myriad';",
      'const r = potrf({ a: strided(new Float64Array([4, 2, 2, 3]), { rows: 2 }) });',
      'const ctx = open() as MultiDeviceContext;',
      'console.log(r.info, ctx.backend, MyriadError.name);',
    ].join('\n'));
    // Node's own types stubbed to the one name the declarations use: checking @types/node would
    // take seconds and proves nothing about myriad's declarations.
    writeFileSync(join(dir, 'node.d.ts'), 'declare class Buffer extends Uint8Array {}\ndeclare const console: { log(...a: unknown[]): void };\n');
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { module: 'commonjs', target: 'ES2022', lib: ['ES2022'], strict: true, noEmit: true, types: [] },
      files: ['index.ts', 'node.d.ts'],
    }));
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    try {
      execFileSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      assert.fail(`tsc failed:\n${(e as { stdout?: string }).stdout ?? String(e)}`);
    }
  });
  it('no declaration imports koffi', () => {
    for (const f of filesUnder(dist, '.d.ts'))
      assert.doesNotMatch(readFileSync(f, 'utf8'), /^import .* from 'koffi'/m, f);
  });
  it('every source map carries its sources', () => {
    const maps = filesUnder(dist, '.js.map');
    assert.ok(maps.length > 0);
    for (const f of maps) {
      const map = JSON.parse(readFileSync(f, 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
      assert.equal(map.sourcesContent?.length, map.sources.length, f);
      assert.ok(map.sourcesContent!.every((s) => typeof s === 'string' && s.length > 0), f);
    }
  });
  it('the LICENSE named in package.json is present and shipped', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { license: string };
    assert.equal(pkg.license, 'MIT');
    assert.ok(existsSync(join(root, 'LICENSE')));
    assert.match(readFileSync(join(root, 'LICENSE'), 'utf8'), /^MIT License/);
  });
  it('the tarball holds what a user runs: no source maps, no tuning sweeps; the CLI and what it imports are there', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const files = (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    // 1201 files on 2026-11-30 (compiled JavaScript and declarations of src/, the README, LICENSE; 1015 on
    // 2026-11-29): a bound that a tarball of stray files (tests, sources, maps: about three times as many)
    // would pass far beyond.
    assert.ok(files.length < 1500, `${files.length} files`);
    assert.deepEqual(files.filter((f) => f.endsWith('.map')), []);
    assert.deepEqual(files.filter((f) => /cuda\/tune\/(main|gemm-sweep|factor-sweep|tsm2-main|tsm2-sweep)\./.test(f) || /bench\/vendor-sweep\./.test(f)), []);
    for (const f of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/cli.js', 'dist/src/bench/run.js', 'dist/src/cuda/tune/tsm2-bench.js', 'LICENSE', 'README.md'])
      assert.ok(files.includes(f), f);
    // Every relative import of a shipped module is shipped too.
    const shipped = new Set(files);
    for (const f of files.filter((x) => x.endsWith('.js'))) {
      for (const m of readFileSync(join(root, f), 'utf8').matchAll(/^(?:import|export)[^'"]*from '(\.[^']+)'/gm)) {
        const target = join(f, '..', m[1]!);
        assert.ok(shipped.has(target), `${f} imports ${target}, which is not shipped`);
      }
    }
  });
  it('npm start builds only where the sources changed since its last build (scripts/start.mjs --build: a fresh tree builds once, a second start builds nothing, a changed source builds again)', () => {
    // A tree of start.mjs beside this checkout's sources and configuration, and a stand-in compiler
    // at TypeScript's path that logs its arguments and writes the one output start.mjs looks for:
    // the checkout's own dist/ may need no build (or, on a fresh clone, a whole one: seconds).
    const dir = mkdtempSync(join(tmpdir(), 'myriad-start-'));
    for (const d of ['src', 'test', 'examples']) symlinkSync(join(root, d), join(dir, d), 'dir');
    mkdirSync(join(dir, 'scripts'));
    copyFileSync(join(root, 'scripts', 'start.mjs'), join(dir, 'scripts', 'start.mjs'));
    const script = join(dir, 'scripts', 'local.ts');
    writeFileSync(script, '');
    for (const f of ['package.json', 'tsconfig.json']) copyFileSync(join(root, f), join(dir, f));
    const bin = join(dir, 'node_modules', 'typescript', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(dir, 'node_modules', 'typescript', 'package.json'), '{}');
    const log = join(dir, 'builds.log');
    writeFileSync(join(bin, 'tsc'), [
      "const { appendFileSync, mkdirSync, writeFileSync } = require('node:fs');",
      `appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)) + '\\n');`,
      `mkdirSync(${JSON.stringify(join(dir, 'dist', 'src'))}, { recursive: true });`,
      `writeFileSync(${JSON.stringify(join(dir, 'dist', 'src', 'cli.js'))}, '');`,
    ].join('\n'));
    const start = (): void => { execFileSync(process.execPath, [join(dir, 'scripts', 'start.mjs'), '--build'], { stdio: 'pipe' }); };
    const builds = (): string[][] => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[]) : []);
    try {
      start();
      assert.deepEqual(builds(), [['-p', dir]], 'the fresh tree built once, the whole project');
      const stamp = join(dir, 'dist', '.built');
      const first = statSync(stamp).mtimeMs;
      start();
      assert.equal(builds().length, 1, 'the second start found dist/ current and built nothing');
      assert.equal(statSync(stamp).mtimeMs, first);
      const later = new Date(Date.now() + 60_000);
      utimesSync(script, later, later);
      start();
      assert.equal(builds().length, 2, 'a source newer than the last build: built again');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('installs run no script of ours (no prepare), and koffi\'s install script is approved', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string>; allowScripts?: Record<string, boolean> };
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(pkg.scripts[hook], undefined, hook);
    assert.equal(pkg.scripts.start, 'node scripts/start.mjs', 'npm start builds dist/ where it is missing or stale (scripts/start.mjs), then the demo');
    assert.match(pkg.scripts.test!, /^node scripts\/build\.mjs && /, 'npm test builds dist/ first on a fresh clone');
    assert.equal(pkg.scripts.check, 'tsc -p . && node dist/scripts/run-tests.js types', 'what npm test\'s transpile leaves unchecked: the types, and the package as published');
    assert.equal(pkg.scripts.prepack, 'tsc -p .');
    assert.equal(pkg.allowScripts?.koffi, true);
  });
});
