/**
 * Complex inverses on the GPU without one (kernels/zinverse/): the generators (pure, every
 * parameter changes the source, distinct entries), the router's complex lists (trtri, lauum, potri,
 * getri: the operation's route, then the CPU reference; poti: cuSOLVER's factor first, then the own
 * route), what a call on device data launches (the route reported, the scan, the moves and the
 * families' kernels in the plan's order, no host wait, A's pairs counted as the batch counts them),
 * and an nvcc compile of a move and of getri's finish for sm_90.
 * The numerics: test/cuda/zinverse-plan.test.ts, zinverse-host-emulation.test.ts (opt-in) and
 * test/gpu/zinverse.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { list, strided, variable } from '../../src/core/batch.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { zinverseColumnsSource, zinverseMoveSource, zinverseScanSource, type ZmoveOp, type ZmoveParams } from '../../src/cuda/kernels/zinverse/index.js';
import { COMPLEX_ROUTES } from '../../src/cuda/router.js';
import { argNumber, recordingContext } from '../helpers/fake-gpus.js';
import { compileForSm90, NVCC_SKIP } from '../helpers/nvcc.js';

const MOVES: readonly ZmoveOp[] = [
  { op: 'identity' },
  { op: 'whole', onlyOk: false }, { op: 'whole', onlyOk: true },
  ...(['lower', 'upper'] as const).flatMap((uplo) => (['copy', 'skip', 'real', 'one'] as const).flatMap((diagonal) =>
    [false, true].flatMap((zeroOther) => [false, true].map((onlyOk): ZmoveOp => ({ op: 'triangle', uplo, diagonal, zeroOther, onlyOk }))))),
];

describe('complex inverses: the generators and the router', () => {
  it('pure; every parameter changes the source; entries distinct', () => {
    const p: ZmoveParams = { dtype: 'float64', kindA: 'strided', kindB: 'strided', move: MOVES[3]! };
    assert.deepEqual(zinverseMoveSource(p), zinverseMoveSource(p));
    const entries = new Set<string>();
    const sources = new Set<string>();
    for (const dtype of ['float64', 'float32'] as const) for (const kindA of ['strided', 'pointer'] as const) for (const kindB of ['strided', 'pointer'] as const) for (const move of MOVES) {
      const s = zinverseMoveSource({ dtype, kindA, kindB, move });
      entries.add(s.entry);
      sources.add(s.source);
    }
    for (const dtype of ['float64', 'float32'] as const) for (const kind of ['strided', 'pointer'] as const) for (const keep of [false, true]) {
      const s = zinverseScanSource({ dtype, kind, keep });
      entries.add(s.entry);
      sources.add(s.source);
    }
    for (const dtype of ['float64', 'float32'] as const) for (const kindW of ['strided', 'pointer'] as const) for (const kindA of ['strided', 'pointer'] as const) {
      const s = zinverseColumnsSource({ dtype, kindW, kindA });
      entries.add(s.entry);
      sources.add(s.source);
    }
    const total = 2 * 4 * MOVES.length + 8 + 8;
    assert.equal(entries.size, total);
    assert.equal(sources.size, total);
    assert.match(zinverseMoveSource({ ...p, move: { op: 'whole', onlyOk: true } }).source, /if \(info\[id\] != 0\) return;/);
    assert.match(zinverseScanSource({ dtype: 'float32', kind: 'pointer', keep: true }).source, /if \(info\[id\] != 0\) return;/);
    assert.doesNotMatch(zinverseMoveSource({ ...p, move: { op: 'identity' } }).source, /const real2\* a =/, 'the identity reads no A');
  });

  it('the routes: the operation\'s own, then the CPU reference; poti: cuSOLVER\'s factor (never captured) first', () => {
    for (const op of ['trtri', 'lauum', 'potri', 'getri'] as const) assert.deepEqual(COMPLEX_ROUTES[op].map((c) => c.name), [op, 'cpu']);
    assert.deepEqual(COMPLEX_ROUTES.poti.map((c) => c.name), ['cusolver', 'poti', 'cpu']);
    assert.equal(COMPLEX_ROUTES.poti[0]!.capturable, false);
  });
});

describe('complex inverses: the launchers on a recording device', () => {
  it('device data: the GPU route; the plan\'s kernels in order; A\'s offset, stride and ld in pairs', () => {
    const { ctx, dev } = recordingContext();
    try {
      const part = 'float64', dtype = 'complex128';
      const count = 3;
      const at = (n: number) => { const ld = n + 2; return strided(ctx.alloc(part, 2 * (5 + (ld * n + 1) * count)), { rows: n, ld, stride: ld * n + 1, offset: 5, count, dtype }); };
      const entries = (): string[] => dev.launches.map((l) => l.src.entry);
      const kinds = (): string[] => entries().map((e) => e.startsWith('zinv_scan') ? 'scan' : e.startsWith('zinv_identity') ? 'identity' : e.startsWith('zinv_') ? 'move' : e.split('_')[0]!);

      dev.launches.length = 0;
      ctx.trtri({ uplo: 'lower', a: at(5) });
      assert.deepEqual(ctx.lastRoute, { op: 'trtri', route: 'trtri', gpu: true });
      assert.deepEqual(kinds(), ['scan', 'identity', 'ztrsm', 'move']);
      const scan = dev.launches[0]!;
      assert.deepEqual([1, 2, 3].map((i) => argNumber(scan.args[i])), [5, 5 * 7 + 1, 7], 'A in pairs');
      assert.equal(argNumber(scan.args[7]), 5, 'n');
      assert.match(entries()[3]!, /^zinv_tri_l_copy_ok_z_/, 'into A where info is 0');

      dev.launches.length = 0;
      ctx.trtri({ uplo: 'upper', diag: 'unit', a: at(40) });
      assert.equal(kinds()[0], 'info', 'a unit triangle: info zeroed, no scan');
      assert.ok(!kinds().includes('scan'));
      assert.match(entries().at(-1)!, /^zinv_tri_u_skip_ok_z_/, 'the unit diagonal not written');

      dev.launches.length = 0;
      ctx.lauum({ uplo: 'upper', a: at(5) });
      assert.deepEqual(ctx.lastRoute, { op: 'lauum', route: 'lauum', gpu: true });
      assert.deepEqual(kinds(), ['info', 'move', 'zherk']);
      assert.match(entries()[1]!, /^zinv_tri_u_real_0_z_/, 'W: the triangle, a real diagonal, zeros elsewhere');

      dev.launches.length = 0;
      ctx.potri({ uplo: 'lower', a: at(5) });
      assert.deepEqual(ctx.lastRoute, { op: 'potri', route: 'potri', gpu: true });
      assert.deepEqual(kinds(), ['scan', 'move', 'identity', 'ztrsm', 'move', 'zherk', 'move']);
      assert.match(entries()[4]!, /^zinv_tri_l_real_z_/, 'the inverse\'s diagonal made real');

      dev.launches.length = 0;
      ctx.poti({ uplo: 'lower', a: at(5) });
      assert.deepEqual(ctx.lastRoute, { op: 'poti', route: 'poti', gpu: true });
      assert.deepEqual(kinds().slice(0, 2), ['zpotrf', 'scan']);
      assert.match(entries()[1]!, /_keep$/, 'potrf\'s info kept');

      dev.launches.length = 0;
      ctx.getri({ a: at(5), ipiv: ctx.upload(new Int32Array(5 * count)) });
      assert.deepEqual(ctx.lastRoute, { op: 'getri', route: 'getri', gpu: true });
      assert.match(entries()[0]!, /^zinv_tri_l_one_0_z_/, 'W := L, a unit diagonal, zeros above');
      assert.deepEqual(kinds().slice(-3), ['ztrsm', 'scan', 'move'], 'inv(U) W, the scan, the finish');
      assert.match(entries().at(-1)!, /^zinv_columns_z_stst$/);
      const finish = dev.launches.at(-1)!;
      assert.deepEqual([argNumber(finish.args[9]), argNumber(finish.args[12]), argNumber(finish.args[13])], [5, count, 5], 'pivotStride, count, n');
    } finally {
      ctx.dispose();
    }
  });

  it('variable batches: the GPU route, one plan per group of one shape and ld (list batches), info scattered to the members\' places, getri\'s pivots gathered first', () => {
    const { ctx, dev } = recordingContext();
    try {
      const data = ctx.alloc('float64', 2 * 400);
      // Orders 5, 3, 5 (ld 7), 5, 0: groups {0, 3}, {1}, {2}, {4}.
      const places = [[5, 5, 0], [3, 3, 30], [5, 7, 50], [5, 5, 100], [0, 1, 140]] as const;
      const a = variable(places.map(([rows, ld, offset]) => ({ data, rows, ld, offset })), { dtype: 'complex128' });
      const entries = (): string[] => dev.launches.map((l) => l.src.entry);
      const count = (prefix: string): number => entries().filter((e) => e.startsWith(prefix)).length;
      const info = ctx.alloc('int32', places.length);
      for (const op of ['trtri', 'lauum', 'potri', 'poti'] as const) {
        dev.launches.length = 0;
        ctx[op]({ uplo: 'lower', a, info });
        assert.deepEqual(ctx.lastRoute, { op, route: op, gpu: true });
        assert.equal(count('int_move'), 4, `${op}: info scattered once per group`);
        assert.equal(entries().filter((e) => /_(st|pa)*pa(st|pa)*(_w\d+)?$/.test(e)).length >= 4, true, `${op}: A as a list batch (pointer tables), each group`);
        if (op === 'trtri' || op === 'potri') assert.equal(count('zinv_scan'), 4, `${op}: one scan per group (n = 0: the scan alone writes info)`);
      }
      dev.launches.length = 0;
      ctx.getri({ a, ipiv: ctx.upload(new Int32Array(5 * places.length)), info });
      assert.deepEqual(ctx.lastRoute, { op: 'getri', route: 'getri', gpu: true });
      assert.equal(count('int_move'), 7, 'per group: the pivots gathered (none of order 0), info scattered');
      assert.equal(entries()[0], 'int_move', 'the first group\'s pivots gathered before its plan');
      assert.equal(count('zinv_columns'), 3, 'one finish per group with n > 0');
    } finally {
      ctx.dispose();
    }
  });

  it('list batches as pointer tables; n = 0 writes info only', () => {
    const { ctx, dev } = recordingContext();
    try {
      const xs = [0, 1].map(() => ctx.alloc('float32', 2 * 4 * 4 + 6));
      dev.launches.length = 0;
      ctx.trtri({ uplo: 'upper', a: list(xs.map((data) => ({ data, offset: 3 })), { rows: 4, dtype: 'complex64' }) });
      assert.deepEqual(ctx.lastRoute, { op: 'trtri', route: 'trtri', gpu: true });
      assert.match(dev.launches[0]!.src.entry, /^zinv_scan_c_pa$/);
      assert.match(dev.launches.at(-1)!.src.entry, /^zinv_tri_u_copy_ok_c_papa$/, 'E into A, both as tables (a list among the operands)');
      dev.launches.length = 0;
      ctx.potri({ a: strided(ctx.alloc('float64', 2), { rows: 0, count: 2, dtype: 'complex128' }) });
      assert.deepEqual(dev.launches.map((l) => l.src.entry.split('_')[0]), ['zinv'], 'the scan alone');
    } finally {
      ctx.dispose();
    }
  });
});

describe('complex inverses: nvcc for sm_90', { skip: NVCC_SKIP, timeout: 600_000 }, () => {
  it('a move and getri\'s finish compile', async () => {
    // Two compiles, one round of the two workers (CI time): a triangle move with every branch, getri's finish; the
    // scan is the move's pattern on the diagonal.
    const sources: KernelSource[] = [
      zinverseMoveSource({ dtype: 'float32', kindA: 'pointer', kindB: 'strided', move: { op: 'triangle', uplo: 'upper', diagonal: 'real', zeroOther: true, onlyOk: true } }),
      zinverseColumnsSource({ dtype: 'float64', kindW: 'strided', kindA: 'pointer' }),
    ];
    for (const r of await compileForSm90(sources)) assert.ok(!('error' in r), `${r.src.entry}: ${'error' in r ? r.error : ''}`);
  });
});
