/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): complex heev above order 32 (kernels/zheev/:
 * the reduction to a real tridiagonal, the tridiag family's values, vectors and clusters kernels, V = Q Z and
 * the store; complex128 and complex64, lower and upper, with and without vectors) as its launcher
 * plans and launches it on a device that records the kernels, their launches and the pointer tables
 * it uploads, compiled as C++ for the host (test/helpers/zheev-large-host-harness.cpp) and run a
 * thread per CUDA thread in the recorded order. A and W lie in one buffer (A at pair offsets, W at
 * real offsets), strided (ld > n, gaps, an offset) and list batches. Each batch holds random,
 * clustered (half the eigenvalues within 1e-9 of each other), repeated (three distinct values),
 * diagonal, zero, graded and positive definite Hermitian matrices, random ones scaled by 2^600 and
 * 2^-600 (complex64 2^100, 2^-100: the load's power-of-two scaling) and one with NaN in its
 * triangle; every matrix carries NaN in the diagonal's imaginary parts and in the triangle not
 * referenced (never read). Checked:
 * - info exactly as the complex reference (cpu/complex/zheev.ts) gives it (n + 2 for the NaN one,
 *   its W and, with vectors, its n x n A NaN);
 * - every element outside the outputs bitwise unchanged (padding, gaps, A with 'values');
 * - the eigenvalues within n eps ||A||_F of the reference's, ascending;
 * - with vectors, ||A V - V diag(w)||_F / (n ||A||_F eps) and ||V^H V - I||_F / (n eps) below 30;
 * - one inverse iteration (forced): info n + 1 where a vector did not converge, for some matrix;
 * - chunks of two matrices (forced): each chunk's launches on its own slices and first matrix.
 * A check of the CUDA source without a GPU; test/gpu/zheev-large.test.ts is the real one.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { list, strided, type Batch } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { Storage } from '../../src/core/storage.js';
import { cpuHeevComplex } from '../../src/cpu/complex/zheev.js';
import { complexHeevTridiagCuda, complexSlice, planZheevTridiag, type ZheevForce } from '../../src/cuda/kernels/zheev/index.js';
import { tridiagSteinSource } from '../../src/cuda/kernels/tridiag/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { get, hermitianFrom, randomHermitian, set, zeros, type Z } from '../helpers/complex.js';
import { HERMITIAN_KINDS, hermitianCase, heevResidual, unitaryResidual, type HermitianKind } from '../helpers/zjacobi-cases.js';
import { compileHarnesses, HOST_EMULATION_SKIP, operandLine, parseHarnessNumber, RECORDED_BASE, recordingDevice, type Recorded } from '../helpers/recording-device.js';
import { Rng } from '../helpers/random.js';

const skip = HOST_EMULATION_SKIP;
const HARNESS = resolve('test/helpers/zheev-large-host-harness.cpp');
const SENTINEL = 12345.5;
const LIMIT = 30;

/** 'huge', 'tiny': random matrices scaled by 2^600 and 2^-600 (complex64 2^100, 2^-100); 'nan': NaN in the triangle. */
type Kind = HermitianKind | 'huge' | 'tiny' | 'nan';
const ALL: readonly Kind[] = [...HERMITIAN_KINDS, 'huge', 'nan', 'tiny'];

interface Case { dtype: DType; n: number; uplo: Uplo; vectors: boolean; form: 'strided' | 'list'; kinds: readonly Kind[]; force?: ZheevForce }

function cases(): Case[] {
  const out: Case[] = [];
  let i = 0;
  for (const n of [33, 40, 47, 64, 65, 100]) for (const dtype of ['float64', 'float32'] as const) {
    const vectors = i % 4 !== 3;
    out.push({ dtype, n, uplo: i % 2 === 0 ? 'lower' : 'upper', vectors, form: (i >> 1) % 2 === 0 ? 'strided' : 'list', kinds: n === 100 ? ['random', 'clustered', 'repeated', 'huge', 'nan', 'tiny'] : ALL });
    i++;
  }
  // Fewer threads than rows (the loops over rows and columns), small orders (forced: the router sends 33 and up).
  out.push({ dtype: 'float64', n: 70, uplo: 'upper', vectors: true, form: 'list', kinds: ['random', 'clustered', 'nan', 'graded'], force: { threads: 32 } });
  // Chunks of two matrices (three chunks, the last of one): each chunk's slices, its first matrix.
  const two = (n: number): number => 2 * 8 * (planZheevTridiag({ dtype: 'float64', n, uplo: 'lower', vectors: true, kind: 'strided' }).slice + complexSlice(n).slice);
  out.push({ dtype: 'float32', n: 34, uplo: 'lower', vectors: true, form: 'strided', kinds: ['random', 'nan', 'hpd', 'huge', 'repeated'], force: { chunkBytes: two(34) } });
  out.push({ dtype: 'float64', n: 35, uplo: 'upper', vectors: false, form: 'list', kinds: ['random', 'tiny', 'nan', 'zero', 'clustered'], force: { chunkBytes: two(35) } });
  out.push({ dtype: 'float32', n: 40, uplo: 'lower', vectors: false, form: 'strided', kinds: ALL });
  out.push({ dtype: 'float64', n: 33, uplo: 'upper', vectors: false, form: 'list', kinds: ALL });
  for (const n of [1, 2, 3, 5]) out.push({ dtype: 'float64', n, uplo: n % 2 === 0 ? 'lower' : 'upper', vectors: true, form: 'strided', kinds: ['random', 'diagonal', 'zero', 'nan', 'repeated'] });
  if (process.env['MYRIAD_ZHEEV_LARGE'] === '1') out.push({ dtype: 'float64', n: 130, uplo: 'lower', vectors: true, form: 'strided', kinds: ['random', 'clustered', 'nan'] });
  return out;
}

const round = (dtype: DType, x: number): number => (dtype === 'float32' ? Math.fround(x) : x);
const inTriangle = (uplo: Uplo, i: number, j: number): boolean => (uplo === 'lower' ? i >= j : i <= j);
/** The power of two a matrix of `kind` is given at. */
const scaleOf = (kind: Kind, dtype: DType): number => (kind === 'huge' ? 1 : kind === 'tiny' ? -1 : 0) * (dtype === 'float32' ? 100 : 600);

interface Prepared {
  c: Case; dir: string; exe: string; defines: string[]; input: string; what: string; count: number; kinds: Kind[];
  buf: Float64Array; mats: Z[]; aOff: number[]; ld: number; wOff: number[]; refW: Float64Array; refInfo: Int32Array;
}

function prepare(c: Case, index: number, root: string): Prepared {
  const rng = new Rng(9100 + index);
  const recorded: Recorded[] = [];
  const dev = recordingDevice(recorded);
  const n = c.n;
  const ld = n + 1 + (index % 2);
  const kinds = [...c.kinds];
  const count = kinds.length;
  const aOff: number[] = [];
  let next = 3;
  const stride = ld * n + 2;
  for (let q = 0; q < count; q++) { aOff.push(next); next += c.form === 'strided' ? stride : ld * n + 1 + (q % 2); }
  const wStart = 2 * next + 5;
  const wOff = Array.from({ length: count }, (_, q) => wStart + q * (n + 3));
  const len = wStart + count * (n + 3) + 4;
  const buf = new Float64Array(len).fill(SENTINEL);
  // The matrices as checked (unscaled, rounded to the dtype) and as placed (scaled by a power of two: exact).
  const mats: Z[] = [];
  kinds.forEach((kind, q) => {
    const h = kind === 'huge' || kind === 'tiny' || kind === 'nan' ? randomHermitian(rng, n) : hermitianCase(rng, kind, n);
    const m = zeros(n, n);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) { const [re, im] = get(h, i, j); set(m, i, j, round(c.dtype, re), round(c.dtype, im)); }
    mats.push(hermitianFrom(m, c.uplo));
    const s = 2 ** scaleOf(kind, c.dtype);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
      const e = 2 * (aOff[q]! + i + j * ld);
      if (!inTriangle(c.uplo, i, j)) { buf[e] = NaN; buf[e + 1] = NaN; continue; }
      buf[e] = get(m, i, j)[0] * s;
      buf[e + 1] = i === j ? NaN : get(m, i, j)[1] * s;
    }
    if (kind === 'nan') buf[2 * (aOff[q]! + (c.uplo === 'lower' ? n - 1 : 0) + (c.uplo === 'lower' ? 0 : n - 1) * ld) + (n > 1 ? 1 : 0)] = NaN;
  });

  const elementBytes = c.dtype === 'float64' ? 8 : 4;
  const data: DeviceArray = { kind: 'device', dtype: c.dtype, length: len, device: 0, ptr: RECORDED_BASE, byteLength: len * elementBytes, disposed: false, dispose() {} };
  const info: DeviceArray = { kind: 'device', dtype: 'int32', length: count, device: 0, ptr: 0x2000000n, byteLength: 4 * count, disposed: false, dispose() {} };
  const type = c.dtype === 'float64' ? 'complex128' : 'complex64';
  const batches = <S extends Storage>(s: S, dtype: 'complex128' | 'complex64'): { a: Batch<S>; w: Batch<S> } => c.form === 'list'
    ? { a: list(aOff.map((offset) => ({ data: s, offset })), { rows: n, cols: n, ld, dtype }), w: list(wOff.map((offset) => ({ data: s, offset })), { rows: n, cols: 1, ld: n }) }
    : { a: strided(s, { rows: n, cols: n, ld, stride, offset: aOff[0]!, count, dtype }), w: strided(s, { rows: n, cols: 1, ld: n, stride: n + 3, offset: wStart, count }) };
  const dv = batches(data, type);
  complexHeevTridiagCuda(dev, { jobz: c.vectors ? 'vectors' : 'values', uplo: c.uplo, a: dv.a, w: dv.w, info }, { force: c.force });
  // The launches per chunk: reduce, values, (vectors, clusters), store.
  const entries = recorded.map((r) => r.src.entry);
  const per = c.vectors ? 5 : 3;
  assert.equal(recorded.length % per, 0, `launches ${entries.join(', ')}`);
  const num = (r: Recorded, k: number): bigint => BigInt(r.args[k]!.value as number | bigint);
  const chunks: [number, number][] = [];
  const plan = planZheevTridiag({ dtype: c.dtype, n, uplo: c.uplo, vectors: c.vectors, kind: c.form === 'list' ? 'pointer' : 'strided' }, { force: c.force });
  const { slice } = plan;
  assert.equal(plan.stein.clusters === undefined, !c.vectors, 'a clusters kernel exactly with the vectors');
  for (let k = 0; k < recorded.length; k += per) {
    const [reduce, values, ...rest] = recorded.slice(k, k + per) as [Recorded, Recorded, ...Recorded[]];
    const store = rest[rest.length - 1]!;
    const vectors = c.vectors ? rest[0] : undefined;
    const clusters = c.vectors ? rest[1] : undefined;
    assert.match(reduce.src.entry, /^zheev_tridiag_reduce_/);
    assert.match(values.src.entry, /^syev_stein_values_/);
    if (vectors !== undefined) assert.match(vectors.src.entry, /^syev_stein_vectors_/);
    if (clusters !== undefined) assert.match(clusters.src.entry, /^syev_stein_clusters_/);
    assert.match(store.src.entry, /^zheev_tridiag_store_/);
    // The slices: the stein kernels get the reduce's real slices, the store both of the reduce's; the chunk's first matrix to all.
    const blocks = reduce.config.grid[0];
    assert.equal(num(reduce, 5) - num(reduce, 4), BigInt(8 * blocks * slice), 'the complex slices after the chunk\'s real slices');
    for (const r of [values, ...(vectors === undefined ? [] : [vectors]), ...(clusters === undefined ? [] : [clusters])]) assert.deepEqual([num(r, 0), num(r, 1)], [num(reduce, 4), num(reduce, 6)]);
    if (clusters !== undefined) {
      // The clusters kernel: the plan's, one block a matrix of the chunk, the vectors kernel's arguments.
      assert.equal(clusters.src.entry, tridiagSteinSource(plan.stein.clusters!).entry);
      assert.deepEqual([clusters.config.grid, clusters.config.block], [[blocks, 1, 1], [plan.stein.clusters!.threads, 1, 1]]);
      assert.deepEqual(clusters.args, vectors!.args);
    }
    assert.deepEqual([num(store, 8), num(store, 9), num(store, 10)], [num(reduce, 4), num(reduce, 5), num(reduce, 6)]);
    assert.equal(Number(num(reduce, 6)), chunks.reduce((t, [, b]) => t + b, 0), 'chunks in order');
    chunks.push([Number(num(reduce, 6)), blocks]);
  }
  assert.equal(chunks.reduce((t, [, b]) => t + b, 0), count);
  if (c.force?.chunkBytes !== undefined) assert.ok(chunks.length > 1, 'several chunks');
  const [reduce, values] = recorded as [Recorded, Recorded];
  const vectors = c.vectors ? recorded[2] : undefined;
  const clusters = c.vectors ? recorded[3] : undefined;
  const store = recorded[per - 1]!;
  const opA = operandLine(store, 0, 2 * elementBytes);
  const opW = operandLine(store, 1, elementBytes);
  assert.equal(operandLine(reduce, 0, 2 * elementBytes).line, opA.line);
  assert.equal(opA.pointer, c.form === 'list');
  const input = [`${count} ${reduce.config.block[0]} ${values.config.block[0]} ${values.config.grid[0] / reduce.config.grid[0]} ${store.config.block[0]} ${store.config.grid[1]} ${len} ${chunks.length}`, ...chunks.map(([f, b]) => `${f} ${b}`),
    opA.line, opW.line, ...Array.from(buf, String)].join('\n') + '\n';

  // The reference, values only, on a copy.
  const refBuf = buf.slice();
  const refInfo = new Int32Array(count);
  const rb = batches(refBuf, 'complex128');
  cpuHeevComplex({ jobz: 'values', uplo: c.uplo, a: rb.a, w: rb.w, info: refInfo });
  const refW = new Float64Array(count * n);
  for (let q = 0; q < count; q++) for (let j = 0; j < n; j++) refW[q * n + j] = refBuf[wOff[q]! + j]! * 2 ** -scaleOf(kinds[q]!, c.dtype);

  const dir = join(root, `case${index}`);
  mkdirSync(dir, { recursive: true });
  const files: [string, Recorded | undefined][] = [['reduce.cu', reduce], ['values.cu', values], ['vectors.cu', vectors], ['clusters.cu', clusters], ['store.cu', store]];
  for (const [f, r] of files) if (r !== undefined) writeFileSync(join(dir, f), r.src.source);
  const defines = [`-DREDUCE=${reduce.src.entry}`, `-DVALUES=${values.src.entry}`, `-DSTORE=${store.src.entry}`, ...(vectors === undefined ? [] : [`-DVECTORS=${vectors.src.entry}`]),
    ...(clusters === undefined ? [] : [`-DCLUSTERS=${clusters.src.entry}`, `-DCLUSTER_THREADS=${clusters.config.block[0]}`]),
    ...(opA.pointer ? ['-DPA'] : []), ...(c.dtype === 'float32' ? ['-DIO=float'] : [])];
  return { c, dir, exe: join(dir, 'h'), defines, input, what: store.src.entry, count, kinds, buf, mats, aOff, ld, wOff, refW, refInfo };
}

function check(p: Prepared, out: string): void {
  const { c, buf, count, ld } = p;
  const n = c.n;
  const nums = out.trim().split(/\s+/).map(parseHarnessNumber);
  assert.equal(nums.length, buf.length + count, `${p.what}: the buffer and info back`);
  const info = nums.slice(buf.length);
  if (c.force?.steinMaxits === undefined) assert.deepEqual(info, [...p.refInfo], `${p.what}: info`);
  const eps = DTYPE_EPS[c.dtype];
  const written = new Set<number>();
  for (let q = 0; q < count; q++) {
    for (let j = 0; j < n; j++) written.add(p.wOff[q]! + j);
    if (c.vectors) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) { written.add(2 * (p.aOff[q]! + i + j * ld)); written.add(2 * (p.aOff[q]! + i + j * ld) + 1); }
  }
  for (let e = 0; e < buf.length; e++) if (!written.has(e)) assert.ok(Object.is(nums[e], buf[e]), `${p.what}: real ${e} changed: ${nums[e]}, was ${buf[e]}`);
  const ratios: string[] = [];
  for (let q = 0; q < count; q++) {
    const kind = p.kinds[q]!;
    const at = `${p.what} #${q} (${kind})`;
    const s = 2 ** -scaleOf(kind, c.dtype);
    const w = nums.slice(p.wOff[q]!, p.wOff[q]! + n).map((x) => x * s);
    const v = zeros(n, n);
    if (c.vectors) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) set(v, i, j, nums[2 * (p.aOff[q]! + i + j * ld)]!, nums[2 * (p.aOff[q]! + i + j * ld) + 1]!);
    if (kind === 'nan') {
      assert.equal(info[q], n + 2, `${at}: info`);
      assert.ok(w.every(Number.isNaN), `${at}: W NaN`);
      if (c.vectors) assert.ok(v.d.every(Number.isNaN), `${at}: A NaN`);
      continue;
    }
    const a = p.mats[q]!;
    let anorm = 0;
    for (const x of a.d) anorm += x * x;
    anorm = Math.sqrt(anorm);
    for (let j = 0; j < n; j++) {
      assert.ok(Math.abs(w[j]! - p.refW[q * n + j]!) <= n * eps * anorm, `${at}: w[${j}] ${w[j]} vs ${p.refW[q * n + j]} (||A|| ${anorm})`);
      if (j > 0) assert.ok(w[j - 1]! <= w[j]!, `${at}: ascending`);
    }
    if (!c.vectors) continue;
    const res = heevResidual(a, v, w, eps);
    const orth = unitaryResidual(v, eps);
    ratios.push(`${kind} ${res.toFixed(2)}/${orth.toFixed(2)}`);
    if (c.force?.steinMaxits !== undefined) continue;
    assert.ok(res < LIMIT, `${at}: ||AV - VW|| ratio ${res}`);
    assert.ok(orth < LIMIT, `${at}: ||V^H V - I|| ratio ${orth}`);
  }
  if (c.force?.steinMaxits !== undefined) {
    assert.ok(info.every((x, q) => (p.kinds[q] === 'nan' ? x === n + 2 : x === 0 || x === n + 1)), `${p.what}: info ${info}`);
    assert.ok(info.some((x) => x === n + 1), `${p.what}: one iteration leaves some vector unconverged`);
  }
  if (ratios.length > 0) console.log(`${p.what}: residual/orthogonality ${ratios.join(', ')}`);
}

describe('complex heev above 32 runs on the host (reduce, the tridiag kernels, store)', { skip, timeout: 3_600_000 }, () => {
  const all = [...cases(), { dtype: 'float64', n: 36, uplo: 'lower', vectors: true, form: 'strided', kinds: ['random', 'random', 'nan'], force: { steinMaxits: 1 } } satisfies Case];
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zheev-large-')) : '';
  const prepared = skip === undefined ? all.map((c, i) => prepare(c, i, root)) : [];
  before(() => compileHarnesses(HARNESS, prepared));
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [i, c] of all.entries()) {
    it(`heev ${c.dtype === 'float64' ? 'complex128' : 'complex64'} ${c.uplo} n = ${c.n} ${c.vectors ? 'vectors' : 'values'}, ${c.form}${c.force === undefined ? '' : ` ${JSON.stringify(c.force)}`}`, () => {
      const p = prepared[i]!;
      const r = spawnSync(p.exe, { input: p.input, maxBuffer: 1 << 28, timeout: 600_000 });
      assert.equal(r.status, 0, `${p.what}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
      check(p, r.stdout.toString());
    });
  }
});
