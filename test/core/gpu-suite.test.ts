/**
 * The GPU suite's runner (scripts/gpu-tests.ts) without a GPU: reading node:test results
 * (scripts/gpu-suite/report.ts, reporter.ts), scheduling by memory, exclusivity and devices
 * (schedule.ts, plan.ts), verdicts and the table (summary.ts), telling "no GPU" from "a GPU that
 * cannot be used" (test/helpers/gpu-presence.ts); and the whole pipeline (run.ts) on a few
 * tiny test files that pass, fail, skip, crash and hang.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MyriadError } from '../../src/core/errors.js';
import { CudaError } from '../../src/cuda/runtime/errors.js';
import { isStale, sourceOf, testFiles } from '../../scripts/gpu-suite/files.js';
import { ALLOWED_SKIPS, TYPICAL_SECONDS, fileKey, needsOf, queueOrder, secondsFromJson, shardOf, skipAllowed } from '../../scripts/gpu-suite/plan.js';
import { REPORT_MARK, formatRecord, parseRun, splitOutput, tally, type ResultRecord } from '../../scripts/gpu-suite/report.js';
import { recordOf } from '../../scripts/gpu-suite/reporter.js';
import { runSuite } from '../../scripts/gpu-suite/run.js';
import { GiB, fitsAlone, nextStarts, slotsFromCores, type FileNeeds, type Machine, type Running } from '../../scripts/gpu-suite/schedule.js';
import { formatTable, judge, totals } from '../../scripts/gpu-suite/summary.js';
import { classifyDriverError } from '../helpers/gpu-presence.js';

const rec = (r: Partial<ResultRecord> & { name: string }): ResultRecord => ({ ok: true, nesting: 0, suite: false, ...r });

describe('report: node:test results into counts', () => {
  it('counts tests, a skipped suite as one skip, suite failures only of their own; keeps the rest as output', () => {
    const text = [
      'some output of the file',
      formatRecord(rec({ name: 'a', nesting: 1 })),
      formatRecord(rec({ name: 'b', nesting: 1, ok: false, failureType: 'testCodeFailure', message: 'boom' })),
      formatRecord(rec({ name: 'suite', suite: true, ok: false, failureType: 'subtestsFailed', message: '1 subtest failed' })),
      formatRecord(rec({ name: 'skipped suite', suite: true, skip: 'no usable GPU: none' })),
      formatRecord(rec({ name: 'hooked', suite: true, ok: false, failureType: 'hookFailed', message: 'before failed' })),
      `partial line${formatRecord(rec({ name: 'c', skip: 'opt-in: X=1' }))}`,
      formatRecord(rec({ name: 'd', todo: 'later', ok: false })),
      `${REPORT_MARK}{not json`,
      '',
    ].join('\n');
    const r = parseRun(text);
    assert.deepEqual([r.pass, r.fail, r.skip, r.todo], [1, 2, 2, 1]);
    assert.deepEqual(r.skips, [{ test: 'skipped suite', reason: 'no usable GPU: none' }, { test: 'c', reason: 'opt-in: X=1' }]);
    assert.deepEqual(r.failures.map((f) => f.test), ['b', 'hooked']);
    assert.deepEqual(r.output, ['some output of the file', 'partial line', `${REPORT_MARK}{not json`]);
  });
  it('nothing reported is nothing counted (the runner then fails the file)', () => {
    const r = tally(splitOutput('').records);
    assert.deepEqual([r.pass, r.fail, r.skip, r.todo], [0, 0, 0, 0]);
  });
  it('the reporter\'s records from node:test events', () => {
    assert.deepEqual(recordOf({ type: 'test:pass', data: { name: 's', nesting: 0, skip: 'why', details: { type: 'suite', duration_ms: 1.4 } } }),
      { ok: true, name: 's', nesting: 0, suite: true, skip: 'why', ms: 1 });
    assert.deepEqual(recordOf({ type: 'test:pass', data: { name: 't', nesting: 2, skip: true } }), { ok: true, name: 't', nesting: 2, suite: false, skip: '' });
    const cause = new Error('expected 1\nto be 2');
    assert.deepEqual(recordOf({ type: 'test:fail', data: { name: 'f', nesting: 1, details: { error: { message: 'wrapped', failureType: 'testCodeFailure', cause } } } }),
      { ok: false, name: 'f', nesting: 1, suite: false, failureType: 'testCodeFailure', message: 'expected 1\nto be 2' });
  });
});

describe('schedule: what starts when', () => {
  const needs = (memory: number, exclusive = false, allGpus = false): FileNeeds => ({ memory: memory * GiB, exclusive, allGpus });
  const table: Record<string, FileNeeds> = { all: needs(4, false, true), ex: needs(4, true), big: needs(24), a: needs(4), b: needs(4), c: needs(4), d: needs(4) };
  const of = (f: string): FileNeeds => table[f]!;
  const h200: Machine = { freeBytes: [139 * GiB], slots: 16, reserveBytes: 14 * GiB };
  const run = (file: string, device: number | 'all'): Running => ({ file, needs: of(file), device });

  it('a file that needs every GPU starts alone, and nothing starts beside it', () => {
    assert.deepEqual(nextStarts(['all', 'ex', 'a'], of, [], h200), [{ file: 'all', device: 'all' }]);
    assert.deepEqual(nextStarts(['ex', 'a'], of, [run('all', 'all')], h200), []);
  });
  it('an exclusive file runs alone; one waiting at the head holds its device until it starts', () => {
    assert.deepEqual(nextStarts(['ex', 'a'], of, [], h200), [{ file: 'ex', device: 0 }]);
    assert.deepEqual(nextStarts(['a'], of, [run('ex', 0)], h200), []);
    assert.deepEqual(nextStarts(['ex', 'a', 'b'], of, [run('c', 0)], h200), [], 'nothing overtakes the waiting exclusive file');
  });
  it('the rest by memory and process slots', () => {
    assert.deepEqual(nextStarts(['big', 'a', 'b', 'c', 'd'], of, [], h200).map((s) => s.file), ['big', 'a', 'b', 'c', 'd']);
    const small: Machine = { freeBytes: [20 * GiB], slots: 16, reserveBytes: 4 * GiB };   // 16 GiB to hand out
    assert.deepEqual(nextStarts(['a', 'b', 'c', 'd', 'big'], of, [], small).map((s) => s.file), ['a', 'b', 'c', 'd']);
    assert.equal(fitsAlone(of('big'), small), false, 'a file larger than the budget is never queued');
    assert.deepEqual(nextStarts(['b', 'c', 'd'], of, [run('a', 0)], { ...h200, slots: 3 }).map((s) => s.file), ['b', 'c']);
  });
  it('several GPUs: files spread over them; exclusive ones take an idle GPU while others run elsewhere', () => {
    const four: Machine = { freeBytes: [139 * GiB, 139 * GiB, 139 * GiB, 139 * GiB], slots: 64, reserveBytes: 14 * GiB };
    assert.deepEqual(nextStarts(['a', 'b', 'c', 'd'], of, [], four).map((s) => s.device), [0, 1, 2, 3]);
    assert.deepEqual(nextStarts(['ex', 'b'], of, [run('a', 0)], four), [{ file: 'ex', device: 1 }, { file: 'b', device: 2 }]);
    assert.deepEqual(nextStarts(['all'], of, [run('a', 3)], four), [], 'every GPU idle first');
  });
  it('slots from cores', () => {
    assert.equal(slotsFromCores(2), 2);
    assert.equal(slotsFromCores(0.5), 1);
    assert.equal(slotsFromCores(64), 16);
  });
});

describe('plan: the table of GPU test files', () => {
  it('the files that filled the card or needed it alone are declared', () => {
    assert.equal(fileKey('dist/test/gpu/host-path.test.js'), 'host-path');
    assert.ok(needsOf('dist/test/gpu/host-path.test.js').exclusive);
    assert.ok(needsOf('dist/test/gpu/prepared.test.js').exclusive);
    assert.ok(needsOf('dist/test/gpu/multi.test.js').allGpus);
    assert.ok(needsOf('dist/test/gpu/large.test.js').memory > needsOf('dist/test/gpu/lauum.test.js').memory);
    assert.deepEqual(queueOrder(['x/lauum.test.js', 'x/host-path.test.js', 'x/multi.test.js']), ['x/multi.test.js', 'x/host-path.test.js', 'x/lauum.test.js']);
    const earlier = secondsFromJson({ files: [{ file: 'dist/test/gpu/qr.test.js', seconds: 300, status: 'passed' }, { file: 'dist/test/gpu/api.test.js', seconds: 5, status: 'failed' }, { file: 'dist/test/gpu/zz.test.js', seconds: 900, status: 'not run' }] });
    assert.deepEqual([...earlier], [['qr', 300], ['api', 5]]);
    assert.deepEqual(queueOrder(['x/api.test.js', 'x/lauum.test.js', 'x/qr.test.js', 'x/prepared.test.js'], earlier), ['x/prepared.test.js', 'x/qr.test.js', 'x/api.test.js', 'x/lauum.test.js'], 'longest first after the exclusive ones');
    assert.deepEqual(queueOrder(['x/api.test.js', 'x/gemm.test.js', 'x/tridiag.test.js']), ['x/tridiag.test.js', 'x/gemm.test.js', 'x/api.test.js'], 'without an earlier run: the typical seconds, longest first');
  });
  it('allowed skips: declared opt-ins, and a second GPU only where there is none', () => {
    assert.ok(skipAllowed('d/factor-solve.test.js', 'opt-in: MYRIAD_FACTOR_TIMING=1 prints the timing table', 1));
    assert.ok(!skipAllowed('d/lauum.test.js', 'opt-in: MYRIAD_FACTOR_TIMING=1', 1), 'only in the file that declares it');
    assert.ok(!skipAllowed('d/lauum.test.js', 'no usable GPU: CUDA_ERROR_OUT_OF_MEMORY (2) from cuDevicePrimaryCtxRetain', 1));
    assert.ok(skipAllowed('d/runtime.test.js', 'opt-out: MYRIAD_QUICK_FIRST=0 turns quick builds off', 1));
    assert.ok(!skipAllowed('d/runtime.test.js', 'quick builds are off: this NVRTC refused --Ofast-compile', 1), 'a refusal fails the suite');
    assert.ok(skipAllowed('d/multi.test.js', 'needs 2 GPUs; this machine has 1', 1));
    assert.ok(!skipAllowed('d/multi.test.js', 'needs 2 GPUs; this machine has 0', 4), 'not where the runner sees 4');
    assert.ok(ALLOWED_SKIPS.every((s) => s.reason.source.startsWith('^')));
  });
});

describe('shards: a suite longer than one command as several of about equal length', () => {
  const paths = ['gesvd-bidiag', 'trmm-leaf', 'trsm', 'gemm', 'zgemm', 'api', 'runtime', 'lauum', 'poti'].map((f) => `dist/test/gpu/${f}.test.js`);
  it('every file in exactly one shard, whatever the order given; each shard within the longest file of the others', () => {
    for (const shards of [1, 2, 3, 4]) {
      const parts = Array.from({ length: shards }, (_, i) => shardOf(paths, i + 1, shards));
      assert.deepEqual(parts.flat().sort(), [...paths].sort(), `${shards} shards`);
      assert.deepEqual(parts, Array.from({ length: shards }, (_, i) => shardOf([...paths].reverse(), i + 1, shards)), `${shards}: the order given`);
      const took = (p: string): number => TYPICAL_SECONDS.get(fileKey(p)) ?? 20;
      const loads = parts.map((part) => part.reduce((t, p) => t + took(p), 0));
      assert.ok(Math.max(...loads) - Math.min(...loads) <= Math.max(...paths.map(took)), `${shards}: ${loads.join(', ')}`);
    }
    // The two longest files go to different halves.
    const [first, second] = [shardOf(paths, 1, 2), shardOf(paths, 2, 2)];
    assert.ok(first.includes(paths[0]!) && second.includes(paths[1]!));
  });
  it('I/N out of range is refused', () => {
    for (const [i, n] of [[0, 2], [3, 2], [1, 0], [1.5, 2]] as const) assert.throws(() => shardOf(paths, i, n), /--shard/);
  });
});

describe('summary: verdicts and the table', () => {
  const report = (over: Partial<ReturnType<typeof tally>> = {}): ReturnType<typeof tally> => ({ pass: 3, fail: 0, skip: 0, todo: 0, skips: [], failures: [], output: [], ...over });
  const ok = { code: 0, signal: null, timedOut: false };
  const never = (): boolean => false;
  it('pass; a skip on a GPU machine fails unless allowed; no tests fails; crash; timeout', () => {
    assert.equal(judge('f', report(), ok, 1, 0, never).status, 'passed');
    const skipped = report({ skip: 1, skips: [{ test: 't', reason: 'no usable GPU: busy' }] });
    const bad = judge('f', skipped, ok, 1, 0, never);
    assert.equal(bad.status, 'failed');
    assert.match(bad.failures[0]!.message, /skipped on a machine with a GPU: no usable GPU: busy/);
    assert.equal(judge('f', skipped, ok, 1, 0, () => true).status, 'passed');
    assert.equal(judge('f', report({ pass: 0 }), ok, 1, 0, never).status, 'failed');
    assert.equal(judge('f', report(), { code: null, signal: 'SIGSEGV', timedOut: false }, 1, 0, never).status, 'crashed');
    assert.equal(judge('f', report(), { code: null, signal: 'SIGKILL', timedOut: true }, 9, 0, never).status, 'timed out');
    const failed = judge('f', report({ fail: 1, failures: [{ test: 't', message: 'x' }], output: ['a', 'b', 'c'] }), { code: 1, signal: null, timedOut: false }, 1, 0, never, undefined, 2);
    assert.equal(failed.status, 'failed');
    assert.deepEqual(failed.outputTail, ['b', 'c'], 'the end of its output travels with a failure');
    assert.equal(judge('f', report({ output: ['a'] }), ok, 1, 0, never).outputTail, undefined, 'not with a pass');
  });
  it('the table has a row per file and a total line; any file not passed fails the suite', () => {
    const rs = [judge('a.test.js', report(), ok, 1.25, 0, never), judge('b.test.js', report({ pass: 0 }), ok, 2, 'all', never)];
    const t = totals(rs, 3.5);
    assert.deepEqual([t.pass, t.failedFiles, t.ok], [3, 1, false]);
    const text = formatTable(rs, t);
    assert.match(text, /^a\.test\.js\s+3\s+0\s+0\s+1\.3\s+passed \(GPU 0\)$/m);
    assert.match(text, /^b\.test\.js\s+0\s+0\s+0\s+2\.0\s+failed \(all GPUs\)$/m);
    assert.match(text, /^total: 2 files, 3 passed, 0 failed, 0 skipped; 1 file\(s\) not passed; 3\.5 s: FAIL$/m);
    assert.equal(totals([], 0).ok, false, 'no files is not a pass');
  });
});

describe('presence: no GPU is not the same as a GPU that cannot be used', () => {
  it('classifies driver errors', () => {
    assert.equal(classifyDriverError(new MyriadError('BACKEND_UNAVAILABLE', 'libcuda.so.1 not found')).state, 'absent');
    assert.equal(classifyDriverError(new CudaError('CUDA_ERROR_NO_DEVICE', 100, 'cuInit', '')).state, 'absent');
    assert.equal(classifyDriverError(new CudaError('CUDA_ERROR_OUT_OF_MEMORY', 2, 'cuInit', '')).state, 'unusable');
    assert.equal(classifyDriverError(new CudaError('CUDA_ERROR_DEVICES_UNAVAILABLE', 46, 'cuInit', '')).state, 'unusable');
    assert.equal(classifyDriverError(new Error('koffi exploded')).state, 'unusable');
  });
});

describe('run: the pipeline on tiny test files', () => {
  it('passes, failures, skips, a crash and a hang each end up in their row', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gpu-suite-test-'));
    try {
      const file = (name: string, body: string): string => { const p = join(dir, `${name}.test.mjs`); writeFileSync(p, `import { test, describe, it } from 'node:test';\n${body}\n`); return p; };
      const files = [
        file('pass', "console.log('hello'); test('one', () => {}); describe('s', () => { it('two', () => {}); });"),
        file('fail', "test('good', () => {}); test('bad', () => { throw new Error('wrong answer'); });"),
        file('skip', "describe('all of it', { skip: 'no usable GPU: busy' }, () => { it('x', () => {}); }); test('y', { skip: 'opt-in: Y=1' }, () => {});"),
        file('crash', "test('first', () => {}); process.exit(3);"),
        file('hang', "test('forever', () => new Promise(() => { setInterval(() => {}, 1000); }));"),
      ];
      const results = await runSuite({
        files, logDir: dir,
        machine: { freeBytes: [8 * GiB], slots: 2, reserveBytes: 0 },
        needsOf: () => ({ memory: GiB, exclusive: false, allGpus: false }),
        // The hang never ends, so any limit gives 'timed out': a short one, not to hold a core idle.
        timeoutSOf: (f) => (f.endsWith('hang.test.mjs') ? 0.5 : 50),
        skipAllowed: (_f, reason) => reason.startsWith('opt-in:'),
      });
      const by = Object.fromEntries(results.map((r) => [r.file.replace(/^.*[\\/]/, ''), r]));
      const row = (n: string): [string, number, number, number] => { const r = by[`${n}.test.mjs`]!; return [r.status, r.pass, r.fail, r.skip]; };
      assert.deepEqual(row('pass'), ['passed', 2, 0, 0]);
      assert.deepEqual(row('fail'), ['failed', 1, 1, 0]);
      assert.match(by['fail.test.mjs']!.failures[0]!.message, /wrong answer/);
      assert.deepEqual(row('skip'), ['failed', 0, 0, 2], 'the suite skipped whole counts, and is not allowed');
      assert.deepEqual(by['skip.test.mjs']!.skips.map((s) => s.allowed), [false, true]);
      assert.notEqual(row('crash')[0], 'passed');
      assert.equal(row('hang')[0], 'timed out');
      assert.match(readFileSync(by['pass.test.mjs']!.log!, 'utf8'), /hello/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('which compiled test files run (scripts/gpu-suite/files.ts)', () => {
  it('a compiled test whose source is gone is left out; one with its source, or outside dist/, runs', () => {
    const have = new Set(['test/gpu', 'test/gpu/factor-potrf.test.ts']);
    const exists = (p: string): boolean => have.has(p.replace(/\\/g, '/'));
    assert.equal(sourceOf('dist/test/gpu/factor.test.js'), 'test/gpu/factor.test.ts');
    assert.equal(isStale('dist/test/gpu/factor.test.js', exists), true);
    assert.equal(isStale('dist/test/gpu/factor-potrf.test.js', exists), false);
    assert.equal(isStale('elsewhere/x.test.js', exists), false);
    assert.equal(isStale('dist/other/x.test.js', exists), false, 'no source folder to judge by: runs');
  });
  it('testFiles lists a folder depth first and reports the stale ones', () => {
    const root = mkdtempSync(join(tmpdir(), 'myriad-files-'));
    try {
      for (const dir of ['dist/test/gpu/sub', 'test/gpu/sub']) mkdirSync(join(root, dir), { recursive: true });
      for (const f of ['dist/test/gpu/a.test.js', 'dist/test/gpu/gone.test.js', 'dist/test/gpu/sub/b.test.js', 'dist/test/gpu/helper.js', 'test/gpu/a.test.ts', 'test/gpu/sub/b.test.ts']) {
        writeFileSync(join(root, f), '');
      }
      const left: string[] = [];
      const files = testFiles(join(root, 'dist/test/gpu'), (p) => left.push(p));
      assert.deepEqual(files.map((f) => f.slice(root.length + 1)), ['dist/test/gpu/a.test.js', 'dist/test/gpu/sub/b.test.js']);
      assert.deepEqual(left.map((f) => f.slice(root.length + 1)), ['dist/test/gpu/gone.test.js']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
