/** The MYRIAD_CPU_* switches as overrides of the tuning table (environment.ts: pure, no process.env). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_CPU_THREADS, threadsFromEnvironment, tuningFromEnvironment } from '../../../src/cpu-fast/environment.js';
import { DEFAULT_CPU_TUNING } from '../../../src/cpu-fast/tuning.js';

test('no switch: the table as it is (an empty value counts as unset)', () => {
  assert.deepEqual(tuningFromEnvironment(DEFAULT_CPU_TUNING, {}), DEFAULT_CPU_TUNING);
  assert.deepEqual(tuningFromEnvironment(DEFAULT_CPU_TUNING, { MYRIAD_CPU_LU_BLOCK: '', MYRIAD_CPU_GEMM: '' }), DEFAULT_CPU_TUNING);
});

test('a malformed switch is an error naming the variable (a typo would otherwise change nothing)', () => {
  const bad: [string, string, RegExp][] = [
    ['MYRIAD_CPU_FMA', '2', /one of '0', '1'/], ['MYRIAD_CPU_GEMM', 'c', /one of 'js', 'wasm'/],
    ['MYRIAD_CPU_INTERLEAVED', 'yes', /one of '0', '1'/], ['MYRIAD_CPU_GESV_PAIRS', '3', /one of '1', '2'/],
    ['MYRIAD_CPU_LU_BLOCK', 'x,1', /two integers/], ['MYRIAD_CPU_LU_BLOCKED', '48', /two integers/], ['MYRIAD_CPU_TRSM_WASM', '1,2,3', /two integers/],
    ['MYRIAD_CPU_LU_BLOCK', '0,4', /at least 1/], ['MYRIAD_CPU_LU_PAIRS', '-1', /at least 0/], ['MYRIAD_CPU_GESV_LOOP', '2.5', /integer/],
    ['MYRIAD_CPU_INTERLEAVED_MEMORY', ' ', /integer/], ['MYRIAD_CPU_INTERLEAVED_MAX', 'eight', /integer/],
  ];
  for (const [name, value, why] of bad) {
    assert.throws(() => tuningFromEnvironment(DEFAULT_CPU_TUNING, { [name]: value }),
      (e: Error) => e.message.startsWith(`${name}: expected`) && why.test(e.message) && e.message.endsWith(`got '${value}'`), `${name}=${value}`);
  }
});

test('each switch overrides its entry', () => {
  const t = tuningFromEnvironment(DEFAULT_CPU_TUNING, {
    MYRIAD_CPU_FMA: '0', MYRIAD_CPU_GEMM: 'js', MYRIAD_CPU_LU_BLOCK: '4,12', MYRIAD_CPU_LU_PAIRS: '0', MYRIAD_CPU_LU_BLOCKED: '48,32',
    MYRIAD_CPU_TRSM_WASM: '0,0', MYRIAD_CPU_INTERLEAVED_MEMORY: '5', MYRIAD_CPU_GESV_INTERLEAVED: '2,6', MYRIAD_CPU_GESV_LOOP: '3',
    MYRIAD_CPU_GESV_LOCALS: '8', MYRIAD_CPU_GESV_PAIRS: '2',
  });
  assert.equal(t.fmaMode, 'off');
  assert.equal(t.gemmForce, 'js');
  assert.deepEqual(t.luWasmBlock, { min: 4, nb: 12 });
  assert.equal(t.luWasmPairsMax, 0);
  assert.deepEqual(t.luBlocked, { min: 48, leaf: 32 });
  assert.deepEqual(t.trsmLeftWasm, { float64: { min: 0, max: 0 }, float32: { min: 0, max: 0 } });
  assert.equal(t.interleavedMemoryFormMin, 5);
  assert.deepEqual(t.gesvInterleaved.float32, { min: 2, max: 6 });
  assert.equal(t.gesvInterleavedLoopMin, 3);
  assert.equal(t.gesvInterleavedLocalsMax, 8);
  assert.equal(t.gesvInterleavedPairsPerTrip, 2);
  assert.equal(tuningFromEnvironment(DEFAULT_CPU_TUNING, { MYRIAD_CPU_FMA: '1' }).fmaMode, 'on');
});

test('the interleaved ranges: off, forced on, capped', () => {
  const off = tuningFromEnvironment(DEFAULT_CPU_TUNING, { MYRIAD_CPU_INTERLEAVED: '0' });
  for (const r of [off.choleskyInterleaved.float64, off.posvInterleaved, off.posvComposed]) assert.ok(r.min > r.max);
  const on = tuningFromEnvironment(DEFAULT_CPU_TUNING, { MYRIAD_CPU_INTERLEAVED: '1', MYRIAD_CPU_INTERLEAVED_MAX: '8' });
  assert.deepEqual(on.choleskyInterleaved.float64, { min: 1, max: 8 });
  assert.deepEqual(on.posvInterleaved, { min: 1, max: 8 });
  assert.deepEqual(on.posvComposed, { min: 9, max: 8 });
});

test('MYRIAD_THREADS: unset, a count, or an error naming the variable', () => {
  assert.equal(threadsFromEnvironment({}), undefined);
  assert.equal(threadsFromEnvironment({ MYRIAD_THREADS: '' }), undefined);
  assert.equal(threadsFromEnvironment({ MYRIAD_THREADS: '3' }), 3);
  assert.throws(() => threadsFromEnvironment({ MYRIAD_THREADS: '0' }), /MYRIAD_THREADS|positive integer/);
  assert.equal(threadsFromEnvironment({ MYRIAD_THREADS: String(MAX_CPU_THREADS) }), MAX_CPU_THREADS);
  assert.throws(() => threadsFromEnvironment({ MYRIAD_THREADS: String(MAX_CPU_THREADS + 1) }), /^MyriadError: MYRIAD_THREADS: expected an integer from 1 to 256, got '257'$/);
});
