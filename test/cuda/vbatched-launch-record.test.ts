/**
 * The launches of the variable-size class paths, pinned: every kernel launch (entry, grid, block,
 * shared bytes, arguments) and every upload's bytes of fixed ragged batches through the route
 * 'vbatched' on a planning device (its fake addresses are deterministic), reduced to one sha256
 * per operation and compared with the recorded digest. The host side's speed-ups (scratch arrays,
 * fused passes) must leave these unchanged; a deliberate change of a launch or table rewrites the
 * digest with the reason in its commit (print them with MYRIAD_PRINT_LAUNCH_DIGESTS=1).
 *
 * The batches: members in three arrays with ragged ld and gaps, sizes 0 to 600 (beyond 512: the
 * per-size path inside the launcher), rectangular gemm and getrf members, both trsm sides, potrs,
 * posv, getrs and gesv (B of several widths), syrk (k 0-69, both uplo and trans), float64 and float32.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, type Hash } from 'node:crypto';
import { type VariableBatch } from '../../src/core/batch.js';
import { raggedMembers } from '../helpers/vbatched-cases.js';
import type { DType } from '../../src/core/dtype.js';
import { runRouted } from '../../src/cuda/router.js';
import { PlanningDevice } from '../../src/cuda/runtime/planning-device.js';
import type { DeviceArray, HostArray, Kernel, KernelSource, LaunchArg, LaunchConfig } from '../../src/cuda/runtime/types.js';
import { H100 } from '../helpers/devices.js';

/** A planning device that hashes every upload and launch, in order. */
class Fingerprint extends PlanningDevice {
  readonly hash: Hash = createHash('sha256');
  launches = 0;
  override upload(host: HostArray, dst?: DeviceArray): DeviceArray {
    const out = super.upload(host, dst);
    this.hash.update(`upload ${host.constructor.name} ${host.length} -> ${out.ptr}\n`);
    this.hash.update(new Uint8Array(host.buffer, host.byteOffset, host.byteLength));
    return out;
  }
  override kernel(src: KernelSource): Kernel {
    const k = super.kernel(src);
    return {
      ...k,
      launch: (c: LaunchConfig, args: readonly LaunchArg[]) => {
        this.launches++;
        const a = args.map((x) => (x.type === 'bytes' ? `bytes:${Buffer.from(x.value).toString('hex')}` : `${x.type}:${String(x.value)}`));
        this.hash.update(`launch ${src.entry} ${c.grid.join(',')} ${c.block.join(',')} ${c.sharedBytes ?? 0} ${a.join(' ')}\n`);
      },
    };
  }
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 2 ** 32; };
}

/** Members of the shapes `shape`, spread over `arrays` with ragged ld and gaps. */
const members = (arrays: readonly DeviceArray[], shape: readonly (readonly [number, number])[], r: () => number): VariableBatch<DeviceArray> =>
  raggedMembers(arrays, shape.length, (i) => shape[i]!, r);

/** Orders of `count` members: mostly 0-100, a few beyond 512. */
const orders = (count: number, r: () => number): number[] => Array.from({ length: count }, (_, i) => (i % 151 === 9 ? 513 + (i % 40) : Math.floor(r() * r() * 101)));

/** The requests of one dtype, by name (each on fresh arrays of `dev`). */
function requests(dev: PlanningDevice, dtype: DType): [string, string, Record<string, unknown>][] {
  const r = rng(dtype === 'float64' ? 11 : 12);
  const arrays = [0, 1, 2].map(() => dev.alloc(dtype, 6e7));
  const count = 1200;
  const info = dev.alloc('int32', count);
  const ipiv = dev.alloc('int32', count * 600);
  const n = orders(count, r);
  const square = n.map((x) => [x, x] as const);
  const rhs = n.map((x, i) => [x, i % 5 === 0 ? 0 : 1 + (i % 7)] as const);
  const k = n.map(() => Math.floor(r() * 70));
  const cols = n.map(() => Math.floor(r() * 50));
  const out: [string, string, Record<string, unknown>][] = [
    ['gemm', 'gemm NN', { transA: 'N', transB: 'N', alpha: 1.5, beta: 0.5, a: members(arrays, n.map((m, i) => [m, k[i]!]), r), b: members(arrays, k.map((x, i) => [x, cols[i]!]), r), c: members(arrays, n.map((m, i) => [m, cols[i]!]), r) }],
    ['gemm', 'gemm TN alpha 0', { transA: 'T', transB: 'N', alpha: 0, beta: 2, a: members(arrays, n.map((m, i) => [k[i]!, m]), r), b: members(arrays, k.map((x, i) => [x, cols[i]!]), r), c: members(arrays, n.map((m, i) => [m, cols[i]!]), r) }],
    ['potrf', 'potrf lower', { uplo: 'lower', a: members(arrays, square, r), info }],
    ['potrf', 'potrf upper', { uplo: 'upper', a: members(arrays, square, r), info }],
    ['getrf', 'getrf', { a: members(arrays, n.map((m, i) => [m, i % 3 === 0 ? Math.max(0, m - 3) : m]), r), ipiv, pivotStride: 600, info }],
    ['trsm', 'trsm left', { side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: 1, a: members(arrays, square, r), b: members(arrays, rhs, r) }],
    ['trsm', 'trsm right', { side: 'right', uplo: 'upper', transA: 'T', diag: 'unit', alpha: 2, a: members(arrays, square, r), b: members(arrays, rhs.map(([x, y]) => [y, x]), r) }],
    ['potrs', 'potrs', { uplo: 'upper', a: members(arrays, square, r), b: members(arrays, rhs, r), info }],
    ['posv', 'posv', { uplo: 'lower', a: members(arrays, square, r), b: members(arrays, rhs, r), info }],
    ['getrs', 'getrs T', { trans: 'T', a: members(arrays, square, r), ipiv, pivotStride: 600, b: members(arrays, rhs, r), info }],
    ['gesv', 'gesv', { a: members(arrays, square, r), ipiv, pivotStride: 600, b: members(arrays, rhs, r), info }],
    ['syrk', 'syrk lower N', { uplo: 'lower', trans: 'N', alpha: 1.5, beta: 0.5, a: members(arrays, n.map((m, i) => [m, k[i]!]), r), c: members(arrays, square, r) }],
    ['syrk', 'syrk upper T beta 0', { uplo: 'upper', trans: 'T', alpha: -1, beta: 0, a: members(arrays, n.map((m, i) => [k[i]!, m]), r), c: members(arrays, square, r) }],
  ];
  return out;
}

/** sha256 of each request's launches and uploads (its own device, so its own addresses). */
function digests(dtype: DType): Record<string, string> {
  const out: Record<string, string> = {};
  const names = requests(new PlanningDevice(H100), dtype).map(([, name]) => name);
  for (const name of names) {
    const dev = new Fingerprint(H100);
    const [op, , request] = requests(dev, dtype).find(([, n]) => n === name)!;
    assert.ok(runRouted(op as 'gemm', dev, request, 'vbatched'), `${name}: a GPU route`);
    assert.ok(dev.launches > 0, `${name}: launches`);
    out[name] = dev.hash.digest('hex').slice(0, 24);
  }
  return out;
}

const EXPECTED: Record<DType, Record<string, string>> = {
  float64: {
    'gemm NN': '1fc2c48b8ad6828a7d52ee3c',
    'gemm TN alpha 0': '5fbf6bf6f0b852016d989b59',
    'potrf lower': 'b5d8f4146e187b16d64190fb',
    'potrf upper': 'b76146a4c1dcef427e9ca4aa',
    'getrf': 'a72249a35a2cf5de2438c663',
    'trsm left': 'd2f82e65f77ba566c65966b8',
    'trsm right': 'c77fbb0dd99d219732fe6093',
    'potrs': 'ac6ece2f184076d511b7e644',
    'posv': '08f6240026cf025b6fb25e10',
    'getrs T': '60e30d881cb5995bc926907a',
    'gesv': '13e2c9b7fd15e1c45855ddf4',
    'syrk lower N': '884374e23b62a807c66ac808',
    'syrk upper T beta 0': '903bd5fb1dce4259a9a1881a',
  },
  float32: {
    'gemm NN': 'dd7b5e5133bd587c72517a16',
    'gemm TN alpha 0': '09151ea1769a86f26bcff2f8',
    'potrf lower': '0a18ee510a4abfb65bddf07d',
    'potrf upper': 'bf03f87b2909b946c453e311',
    'getrf': 'cb3ebf85ac751d67d6719171',
    'trsm left': '28709f38954a8282a61e6aa4',
    'trsm right': 'c3c2d5f2b520f7ec9399f57b',
    'potrs': '3b2e497bfd9dcdad59aff96d',
    'posv': '6e5d2f40c7451843cf7e9ed6',
    'getrs T': '04812ed65e44bae9d468f174',
    'gesv': 'c1b5802f1b26b77765bbf394',
    'syrk lower N': 'cd1c76b27f891affd6bb05c4',
    'syrk upper T beta 0': 'e0584d64b8d3dc81cfc6e932',
  },
};

for (const dtype of ['float64', 'float32'] as const) {
  test(`the class paths' launches and tables of fixed ragged ${dtype} batches are the recorded ones`, () => {
    const got = digests(dtype);
    if (process.env.MYRIAD_PRINT_LAUNCH_DIGESTS === '1') console.log(dtype, JSON.stringify(got, null, 2));
    assert.deepEqual(got, EXPECTED[dtype]);
  });
}
