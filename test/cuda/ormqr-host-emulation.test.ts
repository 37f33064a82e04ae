/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the generated ormqr kernels themselves,
 * compiled as C++ for the host (test/helpers/ormqr-host-harness.cpp) and launched with the shapes
 * the planner gives (and forced ones: several passes over C, several matrices per block with the
 * last block part empty), against the CPU reference: every side and trans, both precisions,
 * strided batches with odd layouts and pointer arrays in reverse order; NaN in everything the
 * kernel must not read (A's diagonal, the part above it, its padding; tau's padding), every element
 * of C outside the matrices bit-identical. A check of the CUDA source without a GPU; the GPU suite
 * (test/gpu/ormqr.test.ts) is the real one.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import type { Side } from '../../src/core/enums.js';
import type { Op } from '../../src/core/ops.js';
import { cpuOrmqr } from '../../src/cpu/lapack/index.js';
import { blockMatrices, ormqrBlockSource, planOrmqr, type OrmqrForce } from '../../src/cuda/kernels/ormqr/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { SIDES, TRANSES, ormqrTolerance, reflectors } from '../helpers/ormqr-data.js';
import { Rng } from '../helpers/random.js';
import { compareOutput, inStrided, layoutLength, oddLayout, randomBuffer, type Layout } from '../helpers/trsm-data.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

const HARNESS = resolve('test/helpers/ormqr-host-harness.cpp');
const LIMIT = 227 * 1024 - 1024;
const text = (x: ArrayLike<number>): string => Array.from(x, (v) => (Number.isNaN(v) ? 'nan' : String(v))).join('\n');

function harness(dir: string, src: KernelSource, pointer: boolean): (input: string, out: FloatArray) => void {
  writeFileSync(join(dir, 'kernel.cu'), src.source.replace('extern __shared__ __align__(16) unsigned char smemBytes[];', 'unsigned char* smemBytes = g_shared;'));
  const exe = join(dir, `h-${src.entry}`);
  execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, ...(pointer ? ['-DPOINTER'] : []), `-I${dir}`, HARNESS, '-o', exe]);
  return (input, out) => {
    const r = spawnSync(exe, { input, maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`host harness failed (${r.status}): ${r.stderr.toString()}`);
    r.stdout.toString().trim().split('\n').forEach((l, i) => { out[i] = /nan/.test(l) ? NaN : Number(l); });
  };
}

interface Case { r: number; k: number; nvec: number; count: number; force?: OrmqrForce }
const CASES: Case[] = [
  { r: 1, k: 1, nvec: 1, count: 3 },
  { r: 5, k: 5, nvec: 3, count: 7 },
  { r: 9, k: 4, nvec: 12, count: 3, force: { threads: 4, matrices: 2 } },
  { r: 17, k: 10, nvec: 40, count: 2 },
  { r: 33, k: 20, nvec: 5, count: 3, force: { threads: 2, matrices: 4 } },
];

test('ormqr kernels run on the host match the CPU reference', { skip, timeout: 900_000 }, () => {
  const rng = new Rng(18);
  const dir = mkdtempSync(join(tmpdir(), 'myriad-ormqr-'));
  try {
    for (const dtype of ['float64', 'float32'] as DType[]) for (const side of SIDES) for (const trans of TRANSES) for (const pointer of [false, true]) {
      const run = harness(dir, ormqrBlockSource({ dtype, side, trans, kind: pointer ? 'pointer' : 'strided' }), pointer);
      for (const c of CASES) check(rng, run, dtype, side, trans, pointer, c);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function check(rng: Rng, run: (input: string, out: FloatArray) => void, dtype: DType, side: Side, trans: Op, pointer: boolean, c: Case): void {
  const { r, k, nvec, count } = c;
  const [m, n] = side === 'left' ? [r, nvec] : [nvec, r];
  const plan = planOrmqr({ dtype, side, trans, kind: pointer ? 'pointer' : 'strided', r, k, nvec, sharedLimit: LIMIT }, { force: c.force });
  const matrices = blockMatrices(plan.shape, count);
  // A: r x (k + 1) (one column more than the reflectors), its diagonal, upper part and padding NaN.
  const la: Layout = oddLayout(r, k + 1, count), lt: Layout = oddLayout(k, 1, count), lc: Layout = oddLayout(m, n, count);
  const A = randomBuffer(rng, dtype, layoutLength(la)).fill(NaN);
  const T = randomBuffer(rng, dtype, layoutLength(lt)).fill(NaN);
  for (let i = 0; i < count; i++) {
    const { a, tau } = reflectors(rng, dtype, r, k + 1, k);
    for (let j = 0; j < k; j++) for (let p = j + 1; p < r; p++) A[la.offset + i * la.stride + p + j * la.ld] = a[p + j * r]!;
    for (let j = 0; j < k; j++) T[lt.offset + i * lt.stride + j] = tau[j]!;
  }
  const C = randomBuffer(rng, dtype, layoutLength(lc));
  const want = C.slice();
  cpuOrmqr({
    side, trans,
    a: strided(A, { rows: r, cols: k + 1, count, ld: la.ld, stride: la.stride, offset: la.offset }),
    tau: strided(T, { rows: k, cols: 1, count, ld: lt.ld, stride: lt.stride, offset: lt.offset }),
    c: strided(want, { rows: m, cols: n, count, ld: lc.ld, stride: lc.stride, offset: lc.offset }),
  });
  const head = [count, r, k, nvec, plan.shape.ldt, la.ld, lt.ld, lc.ld, Math.ceil(count / matrices), plan.shape.threads, matrices,
    matrices * plan.shape.bytesPerMatrix, A.length, T.length, C.length].join(' ');
  // Pointer arrays list the matrices in reverse order (matrix i of the kernel is batch matrix count-1-i).
  const offs = (l: Layout): number[] => Array.from({ length: count }, (_, i) => l.offset + (pointer ? count - 1 - i : i) * l.stride);
  const layout = pointer ? [...offs(la), ...offs(lt), ...offs(lc)].join(' ') : [la.offset, la.stride, lt.offset, lt.stride, lc.offset, lc.stride].join(' ');
  const got = C.slice();
  run(`${head}\n${layout}\n${text(A)}\n${text(T)}\n${text(C)}\n`, got);
  compareOutput(got, want, inStrided(lc), ormqrTolerance(dtype, r), `ormqr ${dtype} ${side} ${trans} ${pointer ? 'pointer' : 'strided'} r=${r} k=${k} nvec=${nvec} threads=${plan.shape.threads}`);
}
