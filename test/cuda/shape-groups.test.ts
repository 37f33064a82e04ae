/**
 * Variable batches on launchers of strided and list batches (kernels/common/shape-groups.ts): the
 * members grouped by every batch's shape and ld (order of first appearance, batch order inside a
 * group), each group's request (list batches of the members' places, the element type kept, the
 * group's pivot stride), the covers asked per group, and the integers moved between the groups'
 * arrays and the batch's places: on a device whose memory is host arrays and whose one kernel, the
 * integer move, runs in JavaScript, with a launcher that writes each member's own values. And the
 * router: complex variable batches take the families' routes where every member fits them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { list, strided, type Batch, type ListBatch } from '../../src/core/batch.js';
import type { OpName } from '../../src/core/ops.js';
import { coversEachShape, groupRequest, pairGroups, runByShape, shapeGroups } from '../../src/cuda/kernels/common/shape-groups.js';
import { chooseComplex } from '../../src/cuda/router.js';
import type { DeviceArray, DeviceDType, GpuDevice, HostArray, Kernel, KernelArg, KernelSource, LaunchConfig } from '../../src/cuda/runtime/types.js';
import { H100 } from '../helpers/devices.js';

const BYTES: Record<DeviceDType, number> = { float64: 8, float32: 4, int32: 4, int64: 8 };

/** Device memory as host arrays at distinct addresses; the one kernel it runs is int_move, in JavaScript. */
function memoryDevice(): { dev: GpuDevice; entries: string[]; uploads: number[] } {
  const byPtr = new Map<bigint, HostArray>();
  const entries: string[] = [];
  /** The length of every upload, in order. */
  const uploads: number[] = [];
  let next = 0x10000n;
  const make = (dtype: DeviceDType, host: HostArray, ptr: bigint): DeviceArray => {
    byPtr.set(ptr, host);
    const a = { kind: 'device' as const, dtype, length: host.length, device: 0, ptr, byteLength: host.byteLength, disposed: false, dispose() {}, host };
    return a;
  };
  const typed = (dtype: DeviceDType, buffer: ArrayBufferLike, offset: number, length: number): HostArray =>
    dtype === 'float64' ? new Float64Array(buffer, offset, length) : dtype === 'float32' ? new Float32Array(buffer, offset, length)
      : dtype === 'int32' ? new Int32Array(buffer, offset, length) : new BigInt64Array(buffer, offset, length);
  const hostOf = (a: DeviceArray): HostArray => (a as unknown as { host: HostArray }).host;
  const ints = (ptr: bigint): Int32Array => {
    const h = byPtr.get(ptr);
    assert.ok(h instanceof Int32Array, `int_move reads an int32 array at ${ptr}`);
    return h;
  };
  const dev = {
    info: H100,
    streamHandle: null,
    kernel: (src: KernelSource): Kernel => ({
      name: src.entry, registers: 0, staticSharedBytes: 0, localBytes: 0, maxThreadsPerBlock: 1024,
      launch: (_config: LaunchConfig, args: KernelArg[]) => {
        entries.push(src.entry);
        assert.equal(src.entry, 'int_move');
        const [batch, group, index] = [0, 1, 2].map((i) => ints(args[i]!.value as bigint));
        const [count, width, batchStride, groupStride, gather] = args.slice(3).map((a) => Number(a.value));
        for (let q = 0; q < count!; q++) for (let j = 0; j < width!; j++) {
          const b = index![q]! * batchStride! + j, g = q * groupStride! + j;
          if (gather) group![g] = batch![b]!; else batch![b] = group![g]!;
        }
      },
    }),
    alloc: (dtype: DeviceDType, length: number): DeviceArray => {
      const ptr = next;
      next += BigInt(Math.ceil((length * BYTES[dtype] + 1) / 4096) * 4096);
      return make(dtype, typed(dtype, new ArrayBuffer(length * BYTES[dtype]), 0, length), ptr);
    },
    view: (a: DeviceArray, start: number, length: number, dtype?: DeviceDType): DeviceArray => {
      const t = dtype ?? a.dtype, h = hostOf(a);
      const bytes = start * BYTES[a.dtype];
      return make(t, typed(t, h.buffer, h.byteOffset + bytes, length), a.ptr + BigInt(bytes));
    },
    upload: (host: HostArray, dst?: DeviceArray): DeviceArray => {
      uploads.push(host.length);
      const d = dst ?? dev.alloc(host instanceof Int32Array ? 'int32' : 'float64', host.length);
      (hostOf(d) as Int32Array).set(host as Int32Array);
      return d;
    },
    synchronize() {},
  } as unknown as GpuDevice & { alloc(dtype: DeviceDType, length: number): DeviceArray };
  return { dev, entries, uploads };
}

/** A member's identity: its offset (members lie MEMBER_SPAN elements apart in one array). */
const MEMBER_SPAN = 64;

/** A variable batch of complex members of the given shapes, member i at offset i MEMBER_SPAN of one array. */
function members<S>(data: S, shapes: readonly (readonly [number, number, number?])[]): Batch<S> {
  return { kind: 'variable', order: 'col', dtype: 'complex128', matrices: shapes.map(([rows, cols, ld], i) => ({ data, rows, cols, ld: ld ?? Math.max(1, rows), offset: i * MEMBER_SPAN })) };
}

const idOf = (b: ListBatch<unknown>, q: number): number => b.matrices[q]!.offset / MEMBER_SPAN;

describe('shape groups of a variable batch', () => {
  it('groups by every batch\'s rows, cols and ld, in order of first appearance, each in batch order', () => {
    const a = members(0, [[3, 3], [0, 0], [5, 5], [3, 3], [5, 5, 7], [0, 0], [3, 3], [5, 5]]);
    assert.deepEqual(shapeGroups([a]), [[0, 3, 6], [1, 5], [2, 7], [4]]);
    // B's shapes split a group of A: members 0 and 3 differ in B's columns.
    const b = members(0, [[3, 1], [0, 2], [5, 2], [3, 2], [5, 2], [0, 2], [3, 1], [5, 2]]);
    assert.deepEqual(shapeGroups([a, b]), [[0, 6], [1, 5], [2, 7], [3], [4]]);
    // A strided batch beside a variable one counts as one shape.
    const c = strided(new Float64Array(2 * 8 * 4), { rows: 2, cols: 2, count: 8, dtype: 'complex128' });
    assert.deepEqual(shapeGroups([a, c]), shapeGroups([a]));
    assert.deepEqual(shapeGroups([members(0, [])]), []);
  });

  it('a group\'s request: list batches of the members\' places with their element type, the group\'s pivot stride, integers replaced', () => {
    const a = members('A', [[4, 4], [2, 3], [4, 4]]);
    const w: Batch<string> = { kind: 'variable', order: 'col', matrices: [4, 2, 4].map((n, i) => ({ data: 'W', rows: n, cols: 1, ld: n, offset: 10 * i })) };
    const heev = groupRequest('heev', { jobz: 'vectors', uplo: 'lower', a, w, info: 'I' }, [0, 2]);
    assert.deepEqual(heev['a'], { kind: 'list', order: 'col', rows: 4, cols: 4, ld: 4, dtype: 'complex128', matrices: [{ data: 'A', offset: 0 }, { data: 'A', offset: 2 * MEMBER_SPAN }] });
    assert.deepEqual(heev['w'], { kind: 'list', order: 'col', rows: 4, cols: 1, ld: 4, matrices: [{ data: 'W', offset: 0 }, { data: 'W', offset: 20 }] });
    assert.equal(heev['jobz'], 'vectors');
    assert.equal(heev['info'], 'I');
    const getrf = groupRequest('getrf', { a, ipiv: 'P', pivotStride: 4, info: 'I' }, [1], { ipiv: 'p', info: 'i' });
    assert.equal(getrf['pivotStride'], 2);
    assert.deepEqual([getrf['ipiv'], getrf['info']], ['p', 'i']);
    // gemm's scalars as they are; a batch absent stays absent (gesvd's u, vt).
    const gesvd = groupRequest('gesvd', { a, s: w, info: 'I' }, [1]);
    assert.ok(!('u' in gesvd) || gesvd['u'] === undefined);
  });

  it('covers asked of every group (a representative member), the request itself where no batch is variable', () => {
    const asked: number[] = [];
    const small = coversEachShape('heev', (r: { a: ListBatch<unknown> }) => { asked.push(r.a.rows); return r.a.rows <= 32; });
    const w = (ns: number[]): Batch<number> => ({ kind: 'variable', order: 'col', matrices: ns.map((n) => ({ data: 0, rows: n, cols: 1, ld: Math.max(1, n), offset: 0 })) });
    assert.equal(small({ a: members(0, [[3, 3], [32, 32], [3, 3], [0, 0]]), w: w([3, 32, 3, 0]) } as never, undefined), true);
    assert.deepEqual(asked, [3, 32, 0]);
    assert.equal(small({ a: members(0, [[3, 3], [33, 33]]), w: w([3, 33]) } as never, undefined), false);
    const uniform = list([new Float64Array(2 * 40 * 40)], { rows: 40, dtype: 'complex128' });
    assert.equal(small({ a: uniform, w: list([new Float64Array(40)], { rows: 40, cols: 1 }) } as never, undefined), false);
  });
});

describe('pairGroups (the gels launchers\' systems by shape)', () => {
  it('two strided batches: one group as they are; else list batches of the members, by both shapes, in order of first appearance', () => {
    const sa = strided(new Float64Array(2 * 4 * 3), { rows: 2, cols: 2, count: 3 });
    const sb = strided(new Float64Array(2 * 3), { rows: 2, cols: 1, count: 3 });
    assert.deepEqual(pairGroups(sa, sb), [{ a: sa, b: sb, members: null }]);
    const a = members(0, [[4, 2], [3, 3], [4, 2], [4, 2, 6]]);
    const b = members(0, [[4, 1], [3, 1], [4, 2], [4, 1]]);
    const groups = pairGroups(a, b);
    assert.deepEqual(groups.map((g) => g.members), [[0], [1], [2], [3]]);
    const same = pairGroups(a, members(0, [[4, 1], [3, 1], [4, 1], [4, 1]]));
    assert.deepEqual(same.map((g) => g.members), [[0, 2], [1], [3]]);
    const first = same[0]!;
    assert.equal(first.a.kind, 'list');
    assert.deepEqual([first.a.rows, first.a.cols, first.a.ld, first.a.dtype], [4, 2, 4, 'complex128']);
    assert.deepEqual((first.a as ListBatch<number>).matrices.map((_, q) => idOf(first.a as ListBatch<number>, q)), [0, 2]);
    assert.deepEqual((first.b as ListBatch<number>).matrices.map((_, q) => idOf(first.b as ListBatch<number>, q)), [0, 2]);
    // One shape for all: one group of every member, `members` null (the batch in order).
    const whole = pairGroups(members(0, [[3, 3], [3, 3]]), members(0, [[3, 1], [3, 1]]));
    assert.deepEqual(whole.map((g) => g.members), [null]);
  });
});

describe('runByShape: one launcher call per group, integers at the members\' places', () => {
  /** A launcher that records its groups and writes member id's values: info id + 1, pivot j id * 10 + j. */
  const writer = (calls: number[][]) => (_dev: GpuDevice, r: Record<string, unknown>): void => {
    const a = r['a'] as ListBatch<unknown>;
    assert.equal(a.kind, 'list');
    assert.equal(a.dtype, 'complex128');
    const ids = a.matrices.map((_, q) => idOf(a, q));
    calls.push(ids);
    const info = (r['info'] as { host: Int32Array }).host, k = r['pivotStride'] as number;
    assert.equal(k, Math.min(a.rows, a.cols));
    ids.forEach((id, q) => {
      info[q] = id + 1;
      if (r['ipiv'] !== undefined) for (let j = 0; j < k; j++) (r['ipiv'] as { host: Int32Array }).host[q * k + j] = id * 10 + j;
    });
  };

  it('getrf: info and pivots scattered to the batch\'s places (pivots the batch\'s stride apart), nothing else written', () => {
    const { dev, entries, uploads } = memoryDevice();
    const shapes: [number, number][] = [[5, 5], [0, 0], [3, 2], [5, 5], [2, 3], [0, 0], [3, 2], [6, 4], [5, 5]];
    const count = shapes.length, stride = 5;
    const info = dev.alloc('int32', count + 2), ipiv = dev.alloc('int32', count * stride + 3);
    const [infoHost, ipivHost] = [info, ipiv].map((x) => (x as unknown as { host: Int32Array }).host) as [Int32Array, Int32Array];
    infoHost.fill(-7); ipivHost.fill(-7);
    const calls: number[][] = [];
    runByShape('getrf', writer(calls))(dev, { a: members(dev.alloc('float64', 1), shapes), ipiv, pivotStride: stride, info } as never);
    assert.deepEqual(calls, [[0, 3, 8], [1, 5], [2, 6], [4], [7]]);
    assert.deepEqual([...infoHost], [...shapes.map((_, i) => i + 1), -7, -7]);
    for (let i = 0; i < count; i++) {
      const k = Math.min(...shapes[i]!);
      for (let j = 0; j < stride; j++) assert.equal(ipivHost[i * stride + j], j < k ? i * 10 + j : -7, `member ${i} pivot ${j}`);
    }
    assert.deepEqual([...ipivHost.subarray(count * stride)], [-7, -7, -7]);
    assert.ok(entries.every((e) => e === 'int_move'));
    assert.deepEqual(uploads, [count], 'every group\'s places in one upload');
  });

  it('getrs: the pivots gathered from the batch\'s places before each group runs, info scattered after', () => {
    const { dev } = memoryDevice();
    const shapes: [number, number][] = [[4, 4], [2, 2], [4, 4], [0, 0], [2, 2]];
    const stride = 4, count = shapes.length;
    const info = dev.alloc('int32', count), ipiv = dev.alloc('int32', count * stride);
    const ipivHost = (ipiv as unknown as { host: Int32Array }).host;
    for (let i = 0; i < ipivHost.length; i++) ipivHost[i] = 1000 + i;
    const seen: number[][] = [];
    const run = (_dev: GpuDevice, r: Record<string, unknown>): void => {
      const a = r['a'] as ListBatch<unknown>, k = r['pivotStride'] as number;
      const p = (r['ipiv'] as { host: Int32Array }).host, inf = (r['info'] as { host: Int32Array }).host;
      a.matrices.forEach((_, q) => {
        const id = idOf(a, q);
        seen.push([id, ...p.subarray(q * k, q * k + k)]);
        inf[q] = 0;
      });
    };
    const data = dev.alloc('float64', 1);
    const b = members(data, shapes.map(([n]) => [n, 3] as [number, number]));
    runByShape('getrs', run)(dev, { trans: 'N', a: members(data, shapes), ipiv, pivotStride: stride, b, info } as never);
    assert.deepEqual(seen.sort((x, y) => x[0]! - y[0]!), shapes.map(([n], i) => [i, ...Array.from({ length: n }, (_, j) => 1000 + i * stride + j)]));
    assert.deepEqual([...ipivHost], Array.from({ length: count * stride }, (_, i) => 1000 + i), 'the pivots only read');
  });

  it('one shape in batch order: one call on the request\'s own arrays; no variable batch: the launcher as it is', () => {
    const { dev, entries } = memoryDevice();
    const info = dev.alloc('int32', 3);
    const got: unknown[] = [];
    const run = (_dev: GpuDevice, r: Record<string, unknown>): void => { got.push(r['info'], (r['a'] as Batch<unknown>).kind); };
    runByShape('potrf', run)(dev, { uplo: 'lower', a: members(0, [[4, 4], [4, 4], [4, 4]]), info } as never);
    const strict = strided(new Float64Array(2 * 16 * 3), { rows: 4, count: 3, dtype: 'complex128' });
    runByShape('potrf', run)(dev, { uplo: 'lower', a: strict, info } as never);
    runByShape('potrf', run)(dev, { uplo: 'lower', a: members(0, []), info } as never);
    assert.deepEqual(got, [info, 'list', info, 'strided']);
    assert.deepEqual(entries, []);
  });

  it('gemm: every batch grouped by all three shapes; no integers', () => {
    const { dev, entries, uploads } = memoryDevice();
    const calls: string[] = [];
    const run = (_dev: GpuDevice, r: Record<string, unknown>): void => {
      const [a, b, c] = (['a', 'b', 'c'] as const).map((f) => r[f] as ListBatch<unknown>);
      calls.push(`${a!.rows}x${a!.cols} ${b!.rows}x${b!.cols} ${c!.rows}x${c!.cols}: ${c!.matrices.map((_, q) => idOf(c!, q)).join(',')}`);
    };
    const a = members(0, [[2, 3], [4, 1], [2, 3], [2, 5]]), b = members(0, [[3, 2], [1, 1], [3, 2], [5, 2]]), c = members(0, [[2, 2], [4, 1], [2, 2], [2, 2]]);
    runByShape('gemm', run)(dev, { transA: 'N', transB: 'N', alpha: [1, 0], a, b, beta: [0, 0], c } as never);
    assert.deepEqual(calls, ['2x3 3x2 2x2: 0,2', '4x1 1x1 4x1: 1', '2x5 5x2 2x2: 3']);
    assert.deepEqual(entries, []);
    assert.deepEqual(uploads, [], 'nothing uploaded');
  });
});

describe('the router: complex variable batches on the families\' routes', () => {
  const { dev } = memoryDevice();
  const data = dev.alloc('float64', 2 * 40 * 40 * 4);
  const info = dev.alloc('int32', 4), ipiv = dev.alloc('int32', 4 * 40);
  const real = dev.alloc('float64', 200);
  const vec = (ns: number[]): Batch<DeviceArray> => ({ kind: 'variable', order: 'col', matrices: ns.map((n, i) => ({ data: real, rows: n, cols: 1, ld: Math.max(1, n), offset: 40 * i })) });
  const sq = (ns: number[]): Batch<DeviceArray> => members(data, ns.map((n) => [n, n] as [number, number]));
  const rhs = (ns: number[]): Batch<DeviceArray> => members(data, ns.map((n) => [n, 2] as [number, number]));
  const route = (op: OpName, r: Record<string, unknown>): string => {
    const { taken } = chooseComplex(op, r, dev);
    return `${taken.route}${taken.gpu ? '' : ' (cpu)'}`;
  };

  it('each operation\'s own route, gpu true; the inverses too; heev with a member beyond 512 and gesvd beyond 32 on the CPU reference', () => {
    const ns = [3, 0, 40, 3];
    assert.equal(route('gemm', { transA: 'N', transB: 'N', alpha: [1, 0], a: sq(ns), b: rhs(ns), beta: [0, 0], c: rhs(ns) }), 'gemm');
    assert.equal(route('trsm', { side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: [1, 0], a: sq(ns), b: rhs(ns) }), 'trsm');
    assert.equal(route('herk', { uplo: 'lower', trans: 'N', alpha: 1, a: rhs(ns), beta: 0, c: sq(ns) }), 'herk');
    assert.equal(route('trmm', { side: 'left', uplo: 'upper', transA: 'C', diag: 'unit', alpha: [1, 0], a: sq(ns), b: rhs(ns) }), 'trmm');
    assert.equal(route('syrk', { uplo: 'lower', trans: 'N', alpha: [1, 0], a: rhs(ns), beta: [0, 0], c: sq(ns) }), 'syrk');
    assert.equal(route('potrf', { uplo: 'lower', a: sq(ns), info }), 'potrf');
    assert.equal(route('potrs', { uplo: 'lower', a: sq(ns), b: rhs(ns), info }), 'potrs');
    assert.equal(route('posv', { uplo: 'lower', a: sq(ns), b: rhs(ns), info }), 'posv');
    assert.equal(route('getrf', { a: sq(ns), ipiv, pivotStride: 40, info }), 'getrf');
    assert.equal(route('getrs', { trans: 'N', a: sq(ns), ipiv, pivotStride: 40, b: rhs(ns), info }), 'getrs');
    assert.equal(route('gesv', { trans: 'N', a: sq(ns), ipiv, pivotStride: 40, b: rhs(ns), info }), 'gesv');
    for (const op of ['trtri', 'lauum', 'potri', 'poti'] as const) assert.equal(route(op, { uplo: 'lower', diag: 'nonunit', a: sq(ns), info }), op);
    assert.equal(route('getri', { a: sq(ns), ipiv, pivotStride: 40, info }), 'getri');
    assert.equal(route('heev', { jobz: 'vectors', uplo: 'lower', a: sq([3, 0, 32, 3]), w: vec([3, 0, 32, 3]), info }), 'jacobi');
    assert.equal(route('heev', { jobz: 'vectors', uplo: 'lower', a: sq(ns), w: vec(ns), info }), 'tridiag');
    assert.equal(route('heev', { jobz: 'vectors', uplo: 'lower', a: sq([3, 513, 40]), w: vec([3, 513, 40]), info }), 'cpu (cpu)');
    const rect = members(data, [[3, 5], [32, 2], [0, 0], [3, 5]]);
    assert.equal(route('gesvd', { a: rect, s: vec([3, 2, 0, 3]), info }), 'jacobi');
    assert.equal(route('gesvd', { a: members(data, [[3, 5], [33, 2]]), s: vec([3, 2]), info }), 'cpu (cpu)');
  });
});
