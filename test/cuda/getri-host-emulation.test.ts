/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): getri's two kernels compiled as C++ for the
 * host (test/helpers/cuda-host-shim.h: a thread per CUDA thread) and run as getriCuda composes them,
 * the borrowed launches in between played by their CPU references (trtri lower unit on W, trsm left
 * upper with A), against the CPU reference getri: matrices factored by the CPU getrf (so pivots
 * that move rows), odd ld, stride and offset with NaN in every element outside the matrices,
 * strided operands and pointer arrays in reverse order (an index map), the planned launch shapes
 * and forced ones (several matrices a block with the last block part empty, columns split over
 * blocks). Checked: the prepare kernel's W exactly (L, a unit diagonal, zeros above) and info
 * (the first exact zero of U's diagonal, -0 included; NaN is not zero); the finish kernel's A
 * within rounding of the reference where info is 0, a singular matrix and everything outside the
 * matrices bit for bit, a NaN on U's diagonal confined to its matrix. A check of the CUDA source
 * without a GPU; the GPU suite (test/gpu/getri.test.ts) runs the real composition.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { strided, type StridedBatch } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { cpuGetrf, cpuGetri, cpuTrtri } from '../../src/cpu/lapack/index.js';
import { cpuTrsm } from '../../src/cpu/trsm.js';
import { getriFinishSharedBytes, getriFinishSource, getriPrepareSource, planGetriShape, type GetriShape } from '../../src/cuda/kernels/getri/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { Rng } from '../helpers/random.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const SHIM = resolve('test/helpers/cuda-host-shim.h');
const EPS: Record<DType, number> = { float64: 2.220446049250313e-16, float32: 1.1920928955078125e-7 };

const text = (x: ArrayLike<number>): string => Array.from(x, (v) => (Number.isNaN(v) ? 'nan' : Object.is(v, -0) ? '-0' : String(v))).join('\n');
const same = (x: number, y: number): boolean => Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y));

/** Runs the kernel as a grid on host buffers; reads the sizes, A, W, ipiv and info; prints A, W and info. */
const MAIN = `#include <atomic>
static std::vector<real> readReal(long long n) { std::vector<real> v(n + 1); for (long long i = 0; i < n; ++i) { char s[64]; if (scanf("%63s", s) != 1) exit(3); v[i] = (real)strtod(s, nullptr); } return v; }
static void print(const real* v, long long n) { for (long long i = 0; i < n; ++i) printf("%.17g\\n", (double)v[i]); }
int main() {
  long long count, n, ld, stride, offset, len, columns, threads, matrices, gx, gy, pivotStride, shared;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &count, &n, &ld, &stride, &offset, &len, &columns, &threads, &matrices, &gx, &gy, &pivotStride, &shared) != 13) return 2;
  std::vector<real> A = readReal(len), W = readReal(count * n * n);
  std::vector<int> ipiv(count * pivotStride + 1), info(count + 2);
  for (long long i = 0; i < count * pivotStride; ++i) if (scanf("%d", &ipiv[i]) != 1) return 4;
  for (long long i = 0; i < count + 2; ++i) if (scanf("%d", &info[i]) != 1) return 5;
  const int ldW = (int)(n > 0 ? n : 1);
  std::vector<real*> pa(count + 1), pw(count + 1);
  std::vector<int> index(count + 1);
  for (long long m = 0; m < count; ++m) {   // the pointer form: group matrix m is batch matrix count - 1 - m
    const long long b = count - 1 - m;
    pa[m] = A.data() + offset + b * stride; pw[m] = W.data() + b * n * n; index[m] = (int)b;
  }
  run_grid((unsigned)gx, (unsigned)gy, (unsigned)threads, (unsigned)matrices, 1, shared, [&] {
#ifdef POINTER
#define OPERANDS pa.data(), 0, 0, (int)ld, pw.data(), 0, 0, ldW
#define INDEX index.data()
#else
#define OPERANDS A.data(), offset, stride, (int)ld, W.data(), 0, n * n, ldW
#define INDEX nullptr
#endif
#ifdef FINISH
    ENTRY(OPERANDS, ipiv.data(), (int)pivotStride, info.data(), INDEX, (int)count, (int)n, (int)columns);
#else
    ENTRY(OPERANDS, info.data(), INDEX, (int)count, (int)n, (int)columns);
#endif
  });
  print(A.data(), len); print(W.data(), count * n * n);
  for (long long i = 0; i < count + 2; ++i) printf("%d\\n", info[i]);
}`;

type Runner = (input: string) => string[];

function build(dir: string, src: KernelSource, defines: string[]): Runner {
  const kernel = src.source.replace('extern __shared__ __align__(16) unsigned char smemBytes[];', 'unsigned char* smemBytes = g_shared;');
  writeFileSync(join(dir, `${src.entry}.cu`), kernel);
  const file = join(dir, `${src.entry}-${defines.join('-')}.cpp`);
  writeFileSync(file, `#include "${SHIM}"
#include <atomic>
#define __shared__ static
inline int atomicMin(int* p, int v) { std::atomic_ref<int> r(*p); int old = r.load(); while (v < old && !r.compare_exchange_weak(old, v)) {} return old; }
using std::fma;
#include "${src.entry}.cu"
${MAIN.replaceAll('ENTRY(', `${src.entry}(`)}`);
  const exe = file.replace(/\.cpp$/, '');
  execFileSync('g++', ['-std=c++20', '-O1', '-pthread', ...defines.map((d) => `-D${d}`), `-I${dir}`, file, '-o', exe]);
  return (input) => {
    const r = spawnSync(exe, { input, maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`host harness ${src.entry} failed (${r.status}): ${r.stderr.toString()}`);
    return r.stdout.toString().trim().split('\n');
  };
}

/** What a matrix of a case is made into after getrf: as factored, a zero at U(k, k) (-0 too; two: the first counts), or NaN at U(k, k). */
type Kind = { kind: 'good' } | { kind: 'zero'; at: number[]; negative?: boolean } | { kind: 'nan'; at: number };

interface Layout { count: number; n: number; ld: number; stride: number; offset: number; len: number }

/**
 * n x n matrices, each a diagonally dominant matrix with its rows shuffled (getrf pivots them back,
 * so the pivots move rows; the inverse is well conditioned), factored by the CPU getrf in the
 * buffer; then the kinds' changes to U's diagonal and NaN everywhere outside the matrices.
 */
function factored(rng: Rng, dtype: DType, l: Layout, kinds: readonly Kind[]): { a: FloatArray; ipiv: Int32Array } {
  const a = allocate(dtype, l.len);
  a.fill(NaN);
  for (let m = 0; m < l.count; m++) {
    const perm = Array.from({ length: l.n }, (_, i) => i);
    for (let i = l.n - 1; i > 0; i--) { const j = rng.int(0, i); [perm[i], perm[j]] = [perm[j]!, perm[i]!]; }
    for (let j = 0; j < l.n; j++) for (let i = 0; i < l.n; i++)
      a[l.offset + m * l.stride + perm[i]! + j * l.ld] = i === j ? (rng.uniform() < 0 ? -1 : 1) * (l.n + rng.uniform(1, 2)) : rng.uniform();
  }
  const ipiv = new Int32Array(l.count * l.n);
  cpuGetrf({ a: batchOf(a, l), ipiv, pivotStride: l.n, info: new Int32Array(l.count) });
  kinds.forEach((k, m) => {
    const diag = (j: number): number => l.offset + m * l.stride + j * (l.ld + 1);
    if (k.kind === 'zero') for (const j of k.at) a[diag(j)] = k.negative ? -0 : 0;
    if (k.kind === 'nan') a[diag(k.at)] = NaN;
  });
  return { a, ipiv };
}

const batchOf = <S extends FloatArray>(data: S, l: Layout): StridedBatch<S> =>
  strided(data, { rows: l.n, cols: l.n, count: l.count, ld: l.ld, stride: l.stride, offset: l.offset }) as StridedBatch<S>;

/** Whether buffer element e lies in a matrix of the layout; its matrix, row and column. */
function locate(l: Layout, e: number): { m: number; i: number; j: number } | undefined {
  const q = e - l.offset;
  if (q < 0) return undefined;
  const m = Math.floor(q / l.stride);
  if (m >= l.count) return undefined;
  const w = q - m * l.stride;
  const j = Math.floor(w / l.ld), i = w - j * l.ld;
  return j < l.n && i < l.n ? { m, i, j } : undefined;
}

function input(l: Layout, shape: GetriShape, a: ArrayLike<number>, w: ArrayLike<number>, ipiv: Int32Array, info: Int32Array): string {
  const sizes = [l.count, l.n, l.ld, l.stride, l.offset, l.len, shape.columns, shape.threads, shape.matrices,
    Math.ceil(l.count / shape.matrices), shape.columnBlocks, l.n, getriFinishSharedBytes(l.n, shape.matrices)];
  return `${sizes.join(' ')}\n${text(a)}\n${text(w)}\n${text(ipiv)}\n${text(info)}\n`;
}

function parse(out: string[], l: Layout, dtype: DType): { a: FloatArray; w: FloatArray; info: number[] } {
  const num = (s: string): number => (/nan/i.test(s) ? NaN : Number(s));
  const a = allocate(dtype, l.len), w = allocate(dtype, l.count * l.n * l.n);
  for (let e = 0; e < l.len; e++) a[e] = num(out[e]!);
  for (let e = 0; e < w.length; e++) w[e] = num(out[l.len + e]!);
  const info = out.slice(l.len + w.length).map(Number);
  return { a, w, info };
}

test('getri\'s kernels run on the host around the CPU trtri and trsm agree with the CPU getri', { skip, timeout: 900_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-getri-'));
  const rng = new Rng(2207);
  try {
    for (const dtype of ['float64', 'float32'] as DType[]) for (const pointer of [false, true]) {
      const kind = pointer ? 'pointer' : 'strided';
      const defines = pointer ? ['POINTER'] : [];
      const prepare = build(dir, getriPrepareSource({ dtype, kind }), defines);
      const finish = build(dir, getriFinishSource({ dtype, kind }), [...defines, 'FINISH']);
      for (const n of [0, 1, 2, 3, 7, 16, 33, 40]) {
        const count = 7;
        const ld = n + 2, stride = ld * Math.max(1, n) + 3, offset = 5;
        const l: Layout = { count, n, ld, stride, offset, len: offset + count * stride + 2 };
        const kinds: Kind[] = n === 0 ? Array.from({ length: count }, () => ({ kind: 'good' }))
          : [{ kind: 'good' }, { kind: 'zero', at: [Math.floor(n / 2)] }, { kind: 'good' }, { kind: 'nan', at: n - 1 },
            { kind: 'zero', at: n > 1 ? [n - 1, 1] : [0], negative: true }, { kind: 'good' }, { kind: 'zero', at: [0] }];
        const shapes: GetriShape[] = [planGetriShape(n, count, 132), planGetriShape(n, count, 4),
          { threads: 32, matrices: 3, columns: 2, columnBlocks: Math.max(1, Math.ceil(n / 2)) }];
        for (const shape of shapes) {
          const what = `${dtype} ${kind} n=${n} ${JSON.stringify(shape)}`;
          const { a, ipiv } = factored(rng, dtype, l, kinds);
          const want = a.slice();
          const refInfo = new Int32Array(count);
          cpuGetri({ a: batchOf(want, l), ipiv, pivotStride: n, info: refInfo });
          // 1. prepare: W from A's L, info from U's diagonal; A unchanged.
          const w0 = allocate(dtype, count * n * n).fill(NaN);
          const p = parse(prepare(input(l, shape, a, w0, ipiv, new Int32Array(count + 2).fill(-7))), l, dtype);
          assert.deepEqual(p.info, [...refInfo, -7, -7], `${what}: info`);
          for (let e = 0; e < l.len; e++) assert.ok(same(p.a[e]!, a[e]!), `${what}: prepare changed A at ${e}`);
          for (let m = 0; m < count; m++) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
            const want = i > j ? a[offset + m * stride + i + j * ld]! : i === j ? 1 : 0;
            assert.ok(same(p.w[m * n * n + i + j * n]!, want), `${what}: W(${i}, ${j}) of matrix ${m} is ${p.w[m * n * n + i + j * n]}, expected ${want}`);
          }
          // 2, 3. The borrowed launches, by their CPU references: W := inv(L), W := inv(U) W.
          const wl: Layout = { count, n, ld: Math.max(1, n), stride: n * n, offset: 0, len: count * n * n };
          cpuTrtri({ uplo: 'lower', diag: 'unit', a: batchOf(p.w, wl), info: new Int32Array(count) });
          cpuTrsm({ side: 'left', uplo: 'upper', transA: 'N', diag: 'nonunit', alpha: 1, a: batchOf(p.a, l), b: batchOf(p.w, wl) });
          // 4. finish: A := W P where info is 0.
          const f = parse(finish(input(l, shape, p.a, p.w, ipiv, Int32Array.from(p.info))), l, dtype);
          assert.deepEqual(f.info, p.info, `${what}: finish changed info`);
          const tol = 64 * Math.max(8, n) * EPS[dtype];
          for (let e = 0; e < l.len; e++) {
            const at = locate(l, e);
            const [g, x] = [f.a[e]!, want[e]!];
            if (at === undefined || refInfo[at.m] !== 0) {
              assert.ok(same(g, x), `${what}: element ${e} is ${g}, expected ${x} (must be unchanged)`);
              continue;
            }
            if (kinds[at.m]!.kind === 'nan') continue;   // NaN spreads inside its matrix by the order of the sums
            assert.ok(Math.abs(g - x) <= tol * Math.max(1, Math.abs(x)), `${what}: inv(A)(${at.i}, ${at.j}) of matrix ${at.m} is ${g}, reference ${x}`);
          }
          kinds.forEach((k, m) => {
            if (k.kind !== 'nan') return;
            const elements = Array.from({ length: n * n }, (_, q) => f.a[offset + m * stride + (q % n) + Math.floor(q / n) * ld]!);
            assert.ok(elements.some(Number.isNaN), `${what}: a NaN on U's diagonal shows in its inverse`);
          });
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
