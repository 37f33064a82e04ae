/**
 * The module cache without a GPU: a fake compiler producing bytes from the source stands in
 * for NVRTC. Round trips, derived keys, damaged entries (detected, removed, recompiled) and
 * two processes compiling the same key at once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CompileRequest } from '../../src/cuda/runtime/compiler.js';
import { cacheKey, decodeEntry, defaultCacheDir, encodeEntry, ModuleCache, type ModuleRequest } from '../../src/cuda/runtime/module-cache.js';

/** A deterministic stand-in for NVRTC: sha256(source, options) repeated, plus a compile count. */
function fakeCompiler(): { compile: (r: CompileRequest) => Uint8Array; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    compile: (r) => {
      calls.push(r.name);
      const h = createHash('sha256').update(r.source).update(r.options.join('\0')).digest();
      return new Uint8Array(Buffer.concat([Buffer.from('FAKECUBIN'), h, h, h]));
    },
  };
}

const tmp = (): string => mkdtempSync(join(tmpdir(), 'myriad-cache-test-'));
const REQ: ModuleRequest = { name: 'k.cu', source: 'extern "C" __global__ void k() {}\n', options: ['--gpu-architecture=sm_90', '-std=c++17'], arch: 'sm_90' };
const VERSIONS = { nvrtcVersion: '13.0', driverVersion: '13.0' };

test('memory and disk round trip; a new process (cache) reads the disk entry', () => {
  const dir = tmp();
  const fake = fakeCompiler();
  const a = new ModuleCache({ ...VERSIONS, compile: fake.compile, dir, env: {} });
  const first = a.get(REQ);
  assert.deepEqual(a.get(REQ), first);
  assert.deepEqual(a.stats, { memoryHits: 1, diskHits: 0, compiles: 1, discarded: 0, writeFailures: 0 });
  const file = a.pathOf(a.keyOf(REQ)) as string;
  assert.ok(existsSync(file));
  assert.deepEqual(readdirSync(dir), [`${a.keyOf(REQ)}.bin`], 'no temporary files are left behind');
  const b = new ModuleCache({ ...VERSIONS, compile: fake.compile, dir, env: {} });
  assert.deepEqual(b.get(REQ), first);
  assert.equal(b.stats.diskHits, 1);
  assert.equal(fake.calls.length, 1, 'compiled once in all');
});

test('the key changes with every input and is a sha256', () => {
  const base = { source: 's', options: ['-a'], arch: 'sm_90', nvrtcVersion: '13.0', driverVersion: '13.0' };
  const k = cacheKey(base);
  assert.match(k, /^[0-9a-f]{64}$/);
  const variants = [
    { ...base, source: 's ' },
    { ...base, options: ['-a', '-b'] },
    { ...base, options: ['-a -b'] },
    { ...base, arch: 'sm_80' },
    { ...base, nvrtcVersion: '12.8' },
    { ...base, driverVersion: '12.8' },
  ];
  const keys = new Set([k, ...variants.map(cacheKey)]);
  assert.equal(keys.size, variants.length + 1);
  assert.equal(cacheKey({ ...base }), k, 'deterministic');
});

test('damaged entries are misses: removed, recompiled, rewritten', () => {
  const payload = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]);
  const key = 'ab'.repeat(32);
  const good = encodeEntry(key, payload);
  assert.deepEqual(decodeEntry(key, good), { payload });
  const damage: Record<string, (b: Buffer) => Buffer> = {
    'truncated payload': (b) => b.subarray(0, b.length - 1),
    'truncated header': (b) => b.subarray(0, 50),
    empty: () => Buffer.alloc(0),
    'wrong magic': (b) => Buffer.concat([Buffer.from('XYRIADKC'), b.subarray(8)]),
    'flipped payload byte': (b) => {
      const c = Buffer.from(b);
      c[c.length - 1] = (c[c.length - 1] as number) ^ 1;
      return c;
    },
    'other format version': (b) => {
      const c = Buffer.from(b);
      c[9] = (c[9] as number) ^ 1;
      return c;
    },
    'appended bytes': (b) => Buffer.concat([b, Buffer.from([0])]),
  };
  for (const [what, f] of Object.entries(damage)) assert.ok('bad' in decodeEntry(key, f(good)), what);
  assert.ok('bad' in decodeEntry('cd'.repeat(32), good), 'entry of another key');

  for (const [what, f] of Object.entries(damage)) {
    const dir = tmp();
    const fake = fakeCompiler();
    const writer = new ModuleCache({ ...VERSIONS, compile: fake.compile, dir, env: {} });
    const bytes = writer.get(REQ);
    const file = writer.pathOf(writer.keyOf(REQ)) as string;
    writeFileSync(file, f(readFileSync(file)));
    const reader = new ModuleCache({ ...VERSIONS, compile: fake.compile, dir, env: {} });
    assert.deepEqual(reader.get(REQ), bytes, what);
    assert.equal(reader.stats.discarded, 1, what);
    assert.equal(reader.stats.compiles, 1, `${what}: recompiled`);
    assert.ok('payload' in decodeEntry(reader.keyOf(REQ), readFileSync(file)), `${what}: rewritten whole`);
  }
});

test('MYRIAD_KEEP_SOURCE keeps the .cu; MYRIAD_PRINT_SOURCE prints it once', () => {
  const dir = tmp();
  const printed: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => (printed.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    const c = new ModuleCache({ ...VERSIONS, compile: fakeCompiler().compile, dir, env: { MYRIAD_KEEP_SOURCE: '1', MYRIAD_PRINT_SOURCE: '1' } });
    c.get(REQ);
    c.get(REQ);
    assert.equal(readFileSync(join(dir, `${c.keyOf(REQ)}.cu`), 'utf8'), REQ.source);
  } finally {
    process.stderr.write = write;
  }
  assert.equal(printed.length, 1);
  assert.ok(printed[0]?.includes(REQ.source) && printed[0].includes('k.cu'));
});

test('a folder that cannot be created degrades to memory', () => {
  const file = join(tmp(), 'a-file');
  writeFileSync(file, 'x');
  const c = new ModuleCache({ ...VERSIONS, compile: fakeCompiler().compile, dir: join(file, 'cache'), env: {} });
  assert.ok(c.get(REQ).length > 0);
  assert.ok(c.get(REQ).length > 0);
  assert.equal(c.stats.writeFailures, 1);
  assert.equal(c.stats.compiles, 1);
});

test('a memory-only cache (dir null) never touches the disk', () => {
  const fake = fakeCompiler();
  const c = new ModuleCache({ ...VERSIONS, compile: fake.compile, dir: null, env: {} });
  c.get(REQ);
  c.get(REQ);
  assert.equal(c.pathOf(c.keyOf(REQ)), null);
  assert.equal(fake.calls.length, 1);
});

test('cache folder: MYRIAD_CACHE_DIR, else XDG_CACHE_HOME/myriad, else ~/.cache/myriad', () => {
  assert.equal(defaultCacheDir({ MYRIAD_CACHE_DIR: '/x', XDG_CACHE_HOME: '/y' }), '/x');
  assert.equal(defaultCacheDir({ XDG_CACHE_HOME: '/y' }), '/y/myriad');
  assert.match(defaultCacheDir({}), /\.cache\/myriad$/);
});

test('two processes compiling the same key at once both succeed', async () => {
  const dir = tmp();
  const cacheModule = new URL('../../src/cuda/runtime/module-cache.js', import.meta.url).href;
  const startAt = Date.now() + 1500;
  // Each child: wait for the common start, miss, "compile" slowly, write, then report what it got.
  // The waits sleep (Atomics.wait), the last milliseconds before the start spin: two children
  // spinning for seconds took both cores from the rest of the suite.
  const script = `
    import { createHash } from 'node:crypto';
    import { ModuleCache } from ${JSON.stringify(cacheModule)};
    const req = ${JSON.stringify(REQ)};
    const sleep = (ms) => { if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms); };
    const compile = (r) => {
      sleep(300);
      const h = createHash('sha256').update(r.source).digest();
      return new Uint8Array(Buffer.concat([h, Buffer.alloc(100000, 7), h]));
    };
    sleep(${startAt} - 5 - Date.now());
    while (Date.now() < ${startAt}) {}
    const c = new ModuleCache({ nvrtcVersion: '13.0', driverVersion: '13.0', compile, dir: ${JSON.stringify(dir)}, env: {} });
    const bin = c.get(req);
    console.log(JSON.stringify({ sha: createHash('sha256').update(bin).digest('hex'), stats: c.stats }));
  `;
  const run = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script]);
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`))));
    });
  const results = (await Promise.all([run(), run()])).map((o) => JSON.parse(o) as { sha: string; stats: { compiles: number } });
  assert.equal(results[0]?.sha, results[1]?.sha);
  assert.equal(results[0]?.stats.compiles, 1);
  assert.equal(results[1]?.stats.compiles, 1, 'both missed and compiled: they really raced');
  const c = new ModuleCache({ ...VERSIONS, compile: () => assert.fail('must be a disk hit'), dir, env: {} });
  c.get(REQ);
  assert.equal(c.stats.diskHits, 1);
  assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.tmp')), []);
});
