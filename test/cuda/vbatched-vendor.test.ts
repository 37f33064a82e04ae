/**
 * The vendor's runs of the --vbatched bench (bench/vbatched-vendor.ts, vbatched-vendor-solve.ts) without a GPU: the calls
 * they make, recorded by a fake cuBLAS / cuSOLVER on a planning device that keeps every upload,
 * and the checks that stop a bad member before any native call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { logUniformSizes, vbatchedRequest, type VbatchedOp } from '../../src/bench/vbatched.js';
import { vendorGesv, vendorGetrf, vendorPosv, vendorTrsm, type GesvCalls, type GetrfCalls, type PosvCalls, type TrsmCalls } from '../../src/bench/vbatched-vendor-solve.js';
import { vendorGemm, vendorPotrf, type GemmCalls, type PotrfCalls } from '../../src/bench/vbatched-vendor.js';
import type { VariableBatch } from '../../src/core/batch.js';
import { MyriadError } from '../../src/core/errors.js';
import type { GemmRequest, GesvRequest, GetrfRequest, PosvRequest, PotrfRequest, TrsmRequest } from '../../src/core/ops.js';
import { PlanningDevice } from '../../src/cuda/runtime/planning-device.js';
import type { DeviceArray, HostArray } from '../../src/cuda/runtime/types.js';
import type { GemmGroups } from '../../src/cuda/vendor/native.js';
import { H100 } from '../helpers/devices.js';

/** A planning device that keeps each upload's contents by the address it went to. */
class Recorder extends PlanningDevice {
  readonly at = new Map<bigint, HostArray>();
  override upload(host: HostArray, dst?: DeviceArray): DeviceArray {
    const d = super.upload(host, dst);
    this.at.set(d.ptr, host.slice());
    return d;
  }
}

const sizes = logUniformSizes(3000, 40, 7);
const distinct = [...new Set(sizes)];

function setup(op: VbatchedOp): { dev: Recorder; request: Record<string, unknown>; address: (key: string, i: number) => bigint } {
  const dev = new Recorder(H100);
  const elements = sizes.reduce((s, n) => s + n * n, 0);
  const data = [0, 1, 2].map(() => dev.alloc('float64', elements));
  const request = vbatchedRequest(op, sizes, data, dev.alloc('int32', sizes.length));
  const address = (key: string, i: number): bigint => {
    const m = (request[key] as VariableBatch<DeviceArray>).matrices[i]!;
    return m.data.ptr + BigInt(m.offset * 8);
  };
  return { dev, request, address };
}

/** Batch places by size, in order of first appearance, each in batch order. */
const bySize = (): number[][] => distinct.map((n) => sizes.flatMap((s, i) => (s === n ? [i] : [])));

test('gemm, one cublas?gemmBatched per distinct size: shapes, counts and address arrays', () => {
  const { dev, request, address } = setup('gemm');
  const calls: unknown[][] = [];
  const fake: GemmCalls = {
    gemmPointersAt: (...args) => { calls.push(args); },
    gemmGroupedAt: () => { throw new Error('not the grouped run'); },
  };
  const run = vendorGemm(dev, request as unknown as GemmRequest<DeviceArray>, false, fake)!;
  assert.equal(run.calls, distinct.length);
  run.run();
  assert.equal(calls.length, distinct.length);
  bySize().forEach((members, g) => {
    const n = distinct[g]!;
    const [dtype, transA, transB, m, nn, k, alpha, pa, lda, pb, ldb, beta, pc, ldc, count] = calls[g]!;
    assert.deepEqual([dtype, transA, transB, m, nn, k, alpha, lda, ldb, beta, ldc, count], ['float64', 'N', 'N', n, n, n, 1, n, n, 1, n, members.length]);
    for (const [key, p] of [['a', pa], ['b', pb], ['c', pc]] as const)
      assert.deepEqual(dev.at.get(p as bigint), BigInt64Array.from(members, (i) => address(key, i)), `size ${n}: ${key}'s addresses`);
  });
  run.dispose();
});

test('gemm, one cublas?gemmGroupedBatched: the group arrays and the addresses group after group', () => {
  const { dev, request, address } = setup('gemm');
  const calls: unknown[][] = [];
  const fake: GemmCalls = {
    gemmPointersAt: () => { throw new Error('not the loop'); },
    gemmGroupedAt: (...args) => { calls.push(args); },
  };
  const run = vendorGemm(dev, request as unknown as GemmRequest<DeviceArray>, true, fake)!;
  assert.equal(run.calls, 1);
  run.run();
  assert.equal(calls.length, 1);
  const [dtype, transA, transB, alpha, beta, groups, pa, pb, pc] = calls[0]!;
  assert.deepEqual([dtype, transA, transB, alpha, beta], ['float64', 'N', 'N', 1, 1]);
  const g = groups as GemmGroups;
  const want = Int32Array.from(distinct);
  for (const f of [g.m, g.n, g.k, g.lda, g.ldb, g.ldc]) assert.deepEqual(f, want);
  const members = bySize();
  assert.deepEqual(g.size, Int32Array.from(members, (x) => x.length));
  for (const [key, p] of [['a', pa], ['b', pb], ['c', pc]] as const)
    assert.deepEqual(dev.at.get(p as bigint), BigInt64Array.from(members.flat(), (i) => address(key, i)), `${key}'s addresses`);
  run.dispose();
});

test('potrf, one cusolverDn?potrfBatched per distinct order: info places one after another', () => {
  const { dev, request, address } = setup('potrf');
  const calls: unknown[][] = [];
  const fake: PotrfCalls = { potrfBatchedAt: (...args) => { calls.push(args); } };
  const run = vendorPotrf(dev, request as unknown as PotrfRequest<DeviceArray, DeviceArray>, fake)!;
  run.run();
  const members = bySize();
  assert.equal(calls.length, members.length);
  let place = 0;
  const info0 = calls[0]![5] as bigint;
  members.forEach((list, g) => {
    const [dtype, uplo, n, pointers, lda, info, count] = calls[g]!;
    assert.deepEqual([dtype, uplo, n, lda, count], ['float64', 'lower', distinct[g], distinct[g], list.length]);
    assert.equal(info, info0 + BigInt(4 * place));
    assert.deepEqual(dev.at.get(pointers as bigint), BigInt64Array.from(list, (i) => address('a', i)));
    place += list.length;
  });
  run.dispose();
});

test('a member outside its buffer, or of another dtype, stops the run before any call', () => {
  const { dev, request } = setup('potrf');
  const never: PotrfCalls = { potrfBatchedAt: () => { throw new Error('a native call was made'); } };
  const a = request['a'] as VariableBatch<DeviceArray>;
  const last = a.matrices[a.matrices.length - 1]!;
  const outside: VariableBatch<DeviceArray> = { ...a, matrices: [...a.matrices.slice(0, -1), { ...last, offset: last.data.length }] };
  assert.throws(() => vendorPotrf(dev, { ...request, a: outside } as unknown as PotrfRequest<DeviceArray, DeviceArray>, never),
    (e: unknown) => e instanceof MyriadError && e.code === 'BOUNDS');
  const other: VariableBatch<DeviceArray> = { ...a, matrices: [...a.matrices.slice(0, -1), { ...last, data: dev.alloc('float32', last.data.length) }] };
  assert.throws(() => vendorPotrf(dev, { ...request, a: other } as unknown as PotrfRequest<DeviceArray, DeviceArray>, never),
    (e: unknown) => e instanceof MyriadError && e.code === 'DTYPE');
});

test('without a CUDA device the bench has no vendor run', () => {
  const { dev, request } = setup('gemm');
  assert.equal(vendorGemm(dev, request as unknown as GemmRequest<DeviceArray>, false), undefined);
  assert.equal(vendorPotrf(dev, request as unknown as PotrfRequest<DeviceArray, DeviceArray>), undefined);
  for (const op of ['getrf', 'trsm', 'posv', 'gesv'] as const) {
    const r = setup(op).request as never;
    const run = op === 'getrf' ? vendorGetrf(dev, r) : op === 'trsm' ? vendorTrsm(dev, r) : op === 'posv' ? vendorPosv(dev, r) : vendorGesv(dev, r);
    assert.equal(run, undefined, op);
  }
});

/** The groups' members by size (bySize), with the place of each group's first member among all: info and pivots are packed group after group. */
function packed(): { n: number; members: number[]; place: number; pivots: number }[] {
  let place = 0, pivots = 0;
  return bySize().map((members, g) => {
    const x = { n: distinct[g]!, members, place, pivots };
    place += members.length;
    pivots += distinct[g]! * members.length;
    return x;
  });
}

test('getrf, one cublas?getrfBatched per distinct order: pivots n a member and info packed group after group', () => {
  const { dev, request, address } = setup('getrf');
  const calls: unknown[][] = [];
  const fake: GetrfCalls = { getrfPointersAt: (...args) => { calls.push(args); } };
  const run = vendorGetrf(dev, request as unknown as GetrfRequest<DeviceArray, DeviceArray>, fake)!;
  assert.equal(run.calls, distinct.length);
  run.run();
  const groups = packed();
  assert.equal(calls.length, groups.length);
  const [pivots0, info0] = [calls[0]![4] as bigint, calls[0]![5] as bigint];
  groups.forEach((g, k) => {
    const [dtype, n, pa, lda, pivots, info, count] = calls[k]!;
    assert.deepEqual([dtype, n, lda, count], ['float64', g.n, g.n, g.members.length]);
    assert.equal(pivots, pivots0 + BigInt(4 * g.pivots));
    assert.equal(info, info0 + BigInt(4 * g.place));
    assert.deepEqual(dev.at.get(pa as bigint), BigInt64Array.from(g.members, (i) => address('a', i)));
  });
  run.dispose();
});

test('trsm, one cublas?trsmBatched per distinct shape: left, the request\'s triangle, n right-hand sides', () => {
  const { dev, request, address } = setup('trsm');
  const calls: unknown[][] = [];
  const fake: TrsmCalls = { trsmPointersAt: (...args) => { calls.push(args); } };
  const run = vendorTrsm(dev, request as unknown as TrsmRequest<DeviceArray>, fake)!;
  assert.equal(run.calls, distinct.length);
  run.run();
  packed().forEach((g, k) => {
    const [dtype, side, uplo, trans, diag, m, n, alpha, pa, lda, pb, ldb, count] = calls[k]!;
    assert.deepEqual([dtype, side, uplo, trans, diag, m, n, alpha, lda, ldb, count], ['float64', 'left', 'lower', 'N', 'nonunit', g.n, g.n, 1, g.n, g.n, g.members.length]);
    assert.deepEqual(dev.at.get(pa as bigint), BigInt64Array.from(g.members, (i) => address('a', i)));
    assert.deepEqual(dev.at.get(pb as bigint), BigInt64Array.from(g.members, (i) => address('b', i)));
  });
  assert.equal(calls.length, distinct.length);
  run.dispose();
});

test('posv, per distinct shape cusolverDn?potrfBatched then cublas?trsmBatched with L and with L^T (potrsBatched solves one right-hand side only)', () => {
  const { dev, request, address } = setup('posv');
  const calls: unknown[][] = [];
  const fake: PosvCalls = {
    potrfBatchedAt: (...args) => { calls.push(['potrf', ...args]); },
    trsmPointersAt: (...args) => { calls.push(['trsm', ...args]); },
  };
  const run = vendorPosv(dev, request as unknown as PosvRequest<DeviceArray, DeviceArray>, fake)!;
  assert.equal(run.calls, 3 * distinct.length);
  run.run();
  assert.equal(calls.length, 3 * distinct.length);
  packed().forEach((g, k) => {
    const [potrf, first, second] = calls.slice(3 * k, 3 * k + 3);
    assert.deepEqual([potrf![0], potrf![2], potrf![3], potrf![5], potrf![7]], ['potrf', 'lower', g.n, g.n, g.members.length]);
    const pa = potrf![4] as bigint;
    assert.deepEqual(dev.at.get(pa), BigInt64Array.from(g.members, (i) => address('a', i)));
    for (const [call, trans] of [[first!, 'N'], [second!, 'T']] as const) {
      const [what, dtype, side, uplo, op, diag, m, n, alpha, a, lda, b, ldb, count] = call;
      assert.deepEqual([what, dtype, side, uplo, op, diag, m, n, alpha, a, lda, ldb, count], ['trsm', 'float64', 'left', 'lower', trans, 'nonunit', g.n, g.n, 1, pa, g.n, g.n, g.members.length]);
      assert.deepEqual(dev.at.get(b as bigint), BigInt64Array.from(g.members, (i) => address('b', i)));
    }
  });
  run.dispose();
});

test('gesv, per distinct shape cublas?getrfBatched then cublas?getrsBatched on its pivots', () => {
  const { dev, request, address } = setup('gesv');
  const calls: unknown[][] = [];
  const fake: GesvCalls = {
    getrfPointersAt: (...args) => { calls.push(['getrf', ...args]); },
    getrsPointersAt: (...args) => { calls.push(['getrs', ...args]); },
  };
  const run = vendorGesv(dev, request as unknown as GesvRequest<DeviceArray, DeviceArray>, fake)!;
  assert.equal(run.calls, 2 * distinct.length);
  run.run();
  packed().forEach((g, k) => {
    const [getrf, getrs] = calls.slice(2 * k, 2 * k + 2);
    const [, , n, pa, lda, pivots, , count] = getrf!;
    assert.deepEqual([getrf![0], n, lda, count], ['getrf', g.n, g.n, g.members.length]);
    assert.deepEqual(dev.at.get(pa as bigint), BigInt64Array.from(g.members, (i) => address('a', i)));
    const [what, dtype, trans, n2, nrhs, a2, lda2, piv2, b, ldb, count2] = getrs!;
    assert.deepEqual([what, dtype, trans, n2, nrhs, a2, lda2, piv2, ldb, count2], ['getrs', 'float64', 'N', g.n, g.n, pa, g.n, pivots, g.n, g.members.length]);
    assert.deepEqual(dev.at.get(b as bigint), BigInt64Array.from(g.members, (i) => address('b', i)));
  });
  run.dispose();
});

test('the solves\' loops check before any call: B of other rows than A\'s order, a member outside its buffer', () => {
  const { dev, request } = setup('gesv');
  const never: GesvCalls = { getrfPointersAt: () => { throw new Error('a native call was made'); }, getrsPointersAt: () => { throw new Error('a native call was made'); } };
  const b = request['b'] as VariableBatch<DeviceArray>;
  const first = b.matrices[0]!;
  const short: VariableBatch<DeviceArray> = { ...b, matrices: [{ ...first, rows: first.rows + 1, ld: first.rows + 1 }, ...b.matrices.slice(1)] };
  assert.throws(() => vendorGesv(dev, { ...request, b: short } as unknown as GesvRequest<DeviceArray, DeviceArray>, never),
    (e: unknown) => e instanceof MyriadError && e.argument === 'b');
  const last = b.matrices[b.matrices.length - 1]!;
  const outside: VariableBatch<DeviceArray> = { ...b, matrices: [...b.matrices.slice(0, -1), { ...last, offset: last.data.length }] };
  assert.throws(() => vendorGesv(dev, { ...request, b: outside } as unknown as GesvRequest<DeviceArray, DeviceArray>, never),
    (e: unknown) => e instanceof MyriadError && e.code === 'BOUNDS');
});
