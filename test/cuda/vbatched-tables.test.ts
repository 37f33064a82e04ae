/**
 * The host side of a variable batch, without a GPU: the class kernels' member tables, the
 * per-size path's groups and pointer arrays, and the 64-bit addresses behind them, against a
 * plain reference written here as the straightforward form (a Map of classes and a comparator
 * sort, a key string per member, a BigInt per address). A mixed batch: members in three arrays,
 * ragged ld and gaps, sizes 0 to 600 (beyond 512: the per-size path), rectangular gemm members,
 * strided and list operands beside variable ones, alpha = 0, both transposes, upper and lower;
 * getrf's rectangular members, trsm's both sides (members without vectors left out), posv's fused
 * classes (orders up to 32) and its two solves of the larger members sharing one set of tables.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matrixAt, type Batch, type MatrixView, type VariableBatch } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import { addressWords, groupMembers, memberFields, putAddress } from '../../src/cuda/kernels/common/members.js';
import { groupByShape } from '../../src/cuda/kernels/common/operands.js';
import { sizeClass } from '../../src/cuda/kernels/common/vbatch.js';
import { raggedMembers } from '../helpers/vbatched-cases.js';
import { gemmMemberSize } from '../../src/cuda/kernels/gemm/index.js';
import { GETRF_VBATCH_INTS, getrfClassParams, getrfMemberSize } from '../../src/cuda/kernels/getrf/index.js';
import { TRSM_VBATCH_INTS, TRSM_VBATCH_POINTERS } from '../../src/cuda/kernels/trsm/index.js';
import { FUSED_VBATCH_INTS, FUSED_VBATCH_POINTERS } from '../../src/cuda/kernels/solve/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { runRouted } from '../../src/cuda/router.js';
import { PlanningDevice } from '../../src/cuda/runtime/planning-device.js';
import type { DeviceArray, HostArray, KernelArg, LaunchConfig, KernelSource, Kernel } from '../../src/cuda/runtime/types.js';
import { H100 } from '../helpers/devices.js';

/** A planning device that keeps every upload's contents and every launch's member count. */
class Recorder extends PlanningDevice {
  readonly uploads: HostArray[] = [];
  readonly launches: { entry: string; count: number }[] = [];
  override upload(host: HostArray, dst?: DeviceArray): DeviceArray {
    this.uploads.push(host.slice());
    return super.upload(host, dst);
  }
  override kernel(src: KernelSource): Kernel {
    const k = super.kernel(src);
    return { ...k, launch: (_c: LaunchConfig, args: readonly KernelArg[]) => { this.launches.push({ entry: src.entry, count: countArg(args) }); } };
  }
}

/** The member count of a class launch (the one i32 after the two table pointers). */
const countArg = (args: readonly KernelArg[]): number => { const a = args[2]; return a !== undefined && a.type === 'i32' ? a.value : -1; };

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 2 ** 32; };
}

const members = raggedMembers;

const address = (v: MatrixView<DeviceArray>, bytes: number): bigint => BigInt.asIntN(64, v.data.ptr + BigInt(v.offset) * BigInt(bytes));

/** The reference order: classes by bound descending, each by size descending, ties in batch order. */
function referenceOrder(sizes: readonly (number | undefined)[]): number[] {
  const byClass = new Map<number, number[]>();
  sizes.forEach((d, i) => {
    if (d === undefined) return;
    const bound = sizeClass(d);
    if (bound === undefined) return;
    const list = byClass.get(bound);
    if (list === undefined) byClass.set(bound, [i]); else list.push(i);
  });
  return [...byClass.entries()].sort((x, y) => y[0] - x[0]).flatMap(([, m]) => m.sort((x, y) => sizes[y]! - sizes[x]!));
}

const bytesOf = (dtype: DType): number => (dtype === 'float64' ? 8 : 4);

for (const dtype of ['float64', 'float32'] as DType[]) {
  test(`gemm ${dtype}: the class kernels' tables, member for member`, () => {
    for (const [transA, alpha, kinds] of [['N', 1, 'vvv'], ['T', 0, 'vvv'], ['N', 2, 'slv']] as const) {
      const dev = new Recorder(H100);
      const r = rng(transA === 'N' ? 3 : 4);
      const arrays = [0, 1, 2].map(() => dev.alloc(dtype, 3e7));
      const n = 700;
      const M = Array.from({ length: n }, (_, i) => (i % 61 === 7 ? 520 + (i % 50) : Math.floor(r() * 90)));
      const N = Array.from({ length: n }, () => Math.floor(r() * 40));
      const K = Array.from({ length: n }, () => Math.floor(r() * 70));
      const uniform = kinds === 'slv';
      const m = (i: number): number => (uniform ? 5 : M[i]!);
      const nn = (i: number): number => (uniform ? 6 : N[i]!);
      const k = (i: number): number => (uniform ? 7 : K[i]!);
      let a: Batch<DeviceArray> = members(arrays, n, (i) => (transA === 'N' ? [m(i), k(i)] : [k(i), m(i)]), r);
      let b: Batch<DeviceArray> = members(arrays, n, (i) => [k(i), nn(i)], r);
      if (kinds === 'slv') {
        a = { kind: 'strided', data: arrays[0]!, rows: 5, cols: 7, count: n, ld: 6, stride: 50, offset: 3, order: 'col' };
        b = { kind: 'list', matrices: Array.from({ length: n }, (_, i) => ({ data: arrays[i % 3]!, offset: 100 + 60 * i })), rows: 7, cols: 6, ld: 8, order: 'col' };
      }
      // C: variable, its rows changing where the others are uniform, so that classes differ.
      const c = members(arrays, n, (i) => (uniform ? [i % 3 === 0 ? 0 : 5, 6] : [m(i), nn(i)]), r);
      const beta = 0.5;
      dev.uploads.length = 0;
      runRouted('gemm', dev, { transA, transB: 'N', alpha, beta, a, b, c }, 'vbatched');
      const at = (x: Batch<DeviceArray>, i: number): MatrixView<DeviceArray> => matrixAt(x, i);
      const kOf = (i: number): number => (alpha === 0 ? 0 : transA === 'N' ? at(a, i).cols : at(a, i).rows);
      const sizes = Array.from({ length: n }, (_, i) => gemmMemberSize(at(c, i).rows, at(c, i).cols, kOf(i), beta));
      const order = referenceOrder(sizes);
      assert.ok(order.length > 0);
      const pointers = new BigInt64Array(order.length * 3), ints = new Int32Array(order.length * 6);
      order.forEach((i, q) => {
        pointers.set([address(at(a, i), bytesOf(dtype)), address(at(b, i), bytesOf(dtype)), address(at(c, i), bytesOf(dtype))], 3 * q);
        ints.set([at(c, i).rows, at(c, i).cols, kOf(i), at(a, i).ld, at(b, i).ld, at(c, i).ld], 6 * q);
      });
      assert.deepEqual(dev.uploads[0], pointers, `${transA} ${alpha} ${kinds}: pointer table`);
      assert.deepEqual(dev.uploads[1], ints, `${transA} ${alpha} ${kinds}: int table`);
      const classes = new Map<number, number>();
      for (const i of order) classes.set(sizeClass(sizes[i]!)!, (classes.get(sizeClass(sizes[i]!)!) ?? 0) + 1);
      const launched = dev.launches.filter((l) => l.entry.includes('_v')).map((l) => l.count);
      assert.deepEqual(launched, [...classes.entries()].sort((x, y) => y[0] - x[0]).map(([, q]) => q), 'one launch per class, largest first');
    }
  });

  test(`potrf ${dtype}: the class kernels' tables and the per-size path's groups`, () => {
    for (const uplo of ['lower', 'upper'] as const) {
      const dev = new Recorder(H100);
      const r = rng(uplo === 'lower' ? 5 : 6);
      const arrays = [0, 1, 2].map(() => dev.alloc(dtype, 4e7));
      const n = 900;
      const orders = Array.from({ length: n }, (_, i) => (i % 97 === 3 ? 513 + (i % 3) : Math.floor(r() * 300)));
      const a = members(arrays, n, (i) => [orders[i]!, orders[i]!], r);
      const info = dev.alloc('int32', n);
      dev.uploads.length = 0;
      runRouted('potrf', dev, { uplo, a, info }, 'vbatched');
      const order = referenceOrder(orders);
      const pointers = BigInt64Array.from(order, (i) => address(a.matrices[i]!, bytesOf(dtype)));
      const ints = new Int32Array(order.length * 3);
      order.forEach((i, q) => ints.set([a.matrices[i]!.rows, a.matrices[i]!.ld, i], 3 * q));
      assert.deepEqual(dev.uploads[0], pointers, `${uplo}: pointer table`);
      assert.deepEqual(dev.uploads[1], ints, `${uplo}: int table`);
      // The per-size path: groups by (n, ld) in order of first appearance, a pointer array and an index map each.
      dev.uploads.length = 0;
      runRouted('potrf', dev, { uplo, a, info }, 'potrf');
      const groups = new Map<string, number[]>();
      a.matrices.forEach((m, i) => { const key = `${m.rows}x${m.cols}/${m.ld}`; groups.set(key, [...(groups.get(key) ?? []), i]); });
      assert.deepEqual(groupByShape([a], n), [...groups.values()]);
      const want: HostArray[] = [];
      for (const g of groups.values()) {
        want.push(BigInt64Array.from(g, (i) => address(a.matrices[i]!, bytesOf(dtype))));
        if (g.length !== n) want.push(Int32Array.from(g));
      }
      assert.deepEqual(dev.uploads.slice(0, want.length), want, `${uplo}: per-size pointer arrays and index maps`);
    }
  });
  test(`getrf ${dtype}: the class kernels' tables, rectangular members, the large ones left to the per-size path`, () => {
    const dev = new Recorder(H100);
    const r = rng(dtype === 'float64' ? 7 : 8);
    const arrays = [0, 1, 2].map(() => dev.alloc(dtype, 4e7));
    const n = 800;
    const shape = (i: number): [number, number] => (i % 89 === 5 ? [530, 520 + (i % 7)] : [Math.floor(r() * 140), Math.floor(r() * 140)]);
    const a = members(arrays, n, shape, r);
    const tuning = tuningFor('sm_90', 'getrf');
    const shared = H100.sharedPerBlockOptin;
    // A size has a class where its bound has a design that fits (the planner's rule, asked here per member).
    const sizes = a.matrices.map((m) => {
      const d = getrfMemberSize(m.rows, m.cols);
      const bound = sizeClass(d);
      return bound !== undefined && getrfClassParams(dtype, bound, tuning, shared - 1024) !== undefined ? d : undefined;
    });
    const order = referenceOrder(sizes);
    assert.ok(order.length > 0 && order.length < n);
    runRouted('getrf', dev, { a, ipiv: dev.alloc('int32', n * 540), pivotStride: 540, info: dev.alloc('int32', n) }, 'vbatched');
    const pointers = BigInt64Array.from(order, (i) => address(a.matrices[i]!, bytesOf(dtype)));
    const ints = new Int32Array(order.length * GETRF_VBATCH_INTS);
    order.forEach((i, q) => ints.set([a.matrices[i]!.rows, a.matrices[i]!.cols, a.matrices[i]!.ld, i], GETRF_VBATCH_INTS * q));
    assert.deepEqual(dev.uploads[0], pointers, 'pointer table');
    assert.deepEqual(dev.uploads[1], ints, 'int table');
  });

  test(`trsm ${dtype}: the class kernels' tables on both sides; posv's two solves upload the same tables`, () => {
    for (const side of ['left', 'right'] as const) {
      const dev = new Recorder(H100);
      const r = rng(side === 'left' ? 11 : 12);
      const arrays = [0, 1, 2].map(() => dev.alloc(dtype, 4e7));
      const n = 700;
      const t = Array.from({ length: n }, (_, i) => (i % 131 === 9 ? 515 : Math.floor(r() * 100)));
      const nvec = Array.from({ length: n }, (_, i) => (i % 17 === 0 ? 0 : 1 + Math.floor(r() * 60)));
      const a = members(arrays, n, (i) => [t[i]!, t[i]!], r);
      const b = members(arrays, n, (i) => (side === 'left' ? [t[i]!, nvec[i]!] : [nvec[i]!, t[i]!]), r);
      runRouted('trsm', dev, { side, uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: 0.5, a, b }, 'vbatched');
      const trsmTables = (taken: (i: number) => boolean): { pointers: BigInt64Array; ints: Int32Array } => {
        const order = referenceOrder(t.map((x, i) => (x === 0 || nvec[i] === 0 || !taken(i) ? undefined : x)));
        const pointers = new BigInt64Array(order.length * TRSM_VBATCH_POINTERS);
        const ints = new Int32Array(order.length * TRSM_VBATCH_INTS);
        order.forEach((i, q) => {
          pointers.set([address(a.matrices[i]!, bytesOf(dtype)), address(b.matrices[i]!, bytesOf(dtype))], TRSM_VBATCH_POINTERS * q);
          ints.set([t[i]!, nvec[i]!, a.matrices[i]!.ld, b.matrices[i]!.ld], TRSM_VBATCH_INTS * q);
        });
        return { pointers, ints };
      };
      const all = trsmTables(() => true);
      assert.deepEqual(dev.uploads[0], all.pointers, `${side}: pointer table`);
      assert.deepEqual(dev.uploads[1], all.ints, `${side}: int table`);
      if (side === 'right') continue;
      // posv: the members of order up to 32 on the fused class kernels, first, with their own tables
      // (A, B; n, ldA, nrhs, ldB, batch index); the others classed and tabled once, uploaded for each of the two solves.
      dev.uploads.length = 0;
      runRouted('posv', dev, { uplo: 'upper', a, b, info: dev.alloc('int32', n) }, 'vbatched');
      const fused = referenceOrder(t.map((x) => (x <= 32 ? x : undefined)));
      const fusedPointers = new BigInt64Array(fused.length * FUSED_VBATCH_POINTERS);
      const fusedInts = new Int32Array(fused.length * FUSED_VBATCH_INTS);
      fused.forEach((i, q) => {
        fusedPointers.set([address(a.matrices[i]!, bytesOf(dtype)), address(b.matrices[i]!, bytesOf(dtype))], FUSED_VBATCH_POINTERS * q);
        fusedInts.set([t[i]!, a.matrices[i]!.ld, nvec[i]!, b.matrices[i]!.ld, i], FUSED_VBATCH_INTS * q);
      });
      assert.deepEqual(dev.uploads[0], fusedPointers, 'posv: the fused classes\' pointer table');
      assert.deepEqual(dev.uploads[1], fusedInts, 'posv: the fused classes\' int table');
      const rest = trsmTables((i) => t[i]! > 32);
      const same = (x: HostArray, y: HostArray): boolean => x.length === y.length && x.constructor === y.constructor && x.every((v, j) => v === y[j]);
      assert.equal(dev.uploads.filter((u) => same(u, rest.ints)).length, 2, 'the int table once per solve');
      assert.equal(dev.uploads.filter((u) => same(u, rest.pointers)).length, 2, 'the pointer table once per solve');
    }
  });
}


test('addresses: the carry into the high word and the int64 wrap, as BigInt.asIntN(64) gives them', () => {
  const bases = [0n, 0xfffffff8n, 0x1_ffff_fff0n, (1n << 47n) - 8n, (1n << 63n) - 16n, (1n << 64n) - 8n];
  const offsets = [0, 1, 2, 3, 1e6, 2 ** 29 + 3, 2 ** 40 + 5];
  for (const bytes of [4, 8]) for (const ptr of bases) {
    const data = { kind: 'device', dtype: bytes === 8 ? 'float64' : 'float32', length: 2 ** 50, ptr, byteLength: 0, disposed: false, device: 0, dispose: () => {} } as unknown as DeviceArray;
    const batch: VariableBatch<DeviceArray> = { kind: 'variable', order: 'col', matrices: offsets.map((offset) => ({ data, offset, rows: 1, cols: 1, ld: 1 })) };
    const f = memberFields(batch);
    const table = new BigInt64Array(offsets.length);
    const words = addressWords(table);
    offsets.forEach((_, q) => putAddress(table, words, q, f, q, bytes));
    assert.deepEqual([...table], offsets.map((o) => BigInt.asIntN(64, ptr + BigInt(o) * BigInt(bytes))), `base ${ptr.toString(16)}, ${bytes} bytes`);
  }
});

test('groupMembers: groups in order of first appearance, members in batch order, hash collisions apart', () => {
  const r = rng(9);
  const count = 5000;
  const fields = [0, 1, 2].map(() => Int32Array.from({ length: count }, () => Math.floor(r() * 4)));
  const want = new Map<string, number[]>();
  for (let i = 0; i < count; i++) { const key = fields.map((f) => f[i]).join(','); want.set(key, [...(want.get(key) ?? []), i]); }
  assert.deepEqual(groupMembers(count, fields), [...want.values()]);
  // Keys that differ only where a weak hash would cancel: each its own group.
  const x = Int32Array.from([1, 2, 1, 2, 0, 0]), y = Int32Array.from([2, 1, 2, 1, 0, 0]);
  assert.deepEqual(groupMembers(6, [x, y]), [[0, 2], [1, 3], [4, 5]]);
});
