/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the LU solves for n <= 32 (the fused gesv
 * kernels and the getrs kernels, real: solve/generate-small.ts, complex: complex-lu/) on matrices
 * whose U has a subnormal diagonal entry, compiled as C++ for the host
 * (test/helpers/lu-solve-host-harness.cpp) and run a thread per CUDA thread. X is finite there (about
 * 2^9 or 2^10), while 1 / U(k, k) overflows: the solves must divide where the diagonal lies below
 * the smallest normal number, as LAPACK's trsm does.
 * - float32 / complex64: test/helpers/rounded-pivot.ts's 'roundsUp' (real) and 'reOnly' / 'imOnly'
 *   (complex) members, U(k+1, k+1) = -2^-149 (complex: one part), alone and among dense neighbours;
 *   gesv through that helper's checks (info, pivots, finite X, the dense members' residuals);
 * - float64 / complex128: a unit upper triangle with U(n-1, n-1) = 2^-1070 (complex: 2^-1070 (1 + i))
 *   and b(n-1) = 2^-1060 (the dtype's diagonal subnormal, 1 / it beyond the largest number);
 * - getrs ('N', 'T', and 'C' for complex) on the reference's factors of the same matrices.
 * X against the reference backend's within 64 n eps of the member's largest |X|.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { strided } from '../../src/core/batch.js';
import type { ElementType, FloatArray } from '../../src/core/dtype.js';
import { open } from '../../src/index.js';
import { complexGesvLayout, complexGesvSource, complexGetrsLayout, complexGetrsSource, planComplexGesv, planComplexGetrs } from '../../src/cuda/kernels/complex-lu/index.js';
import { complexSlotGrid } from '../../src/cuda/kernels/complex-lu/slots.js';
import { gesvSmallSource, planFusedSolve, planSmallSolve, smallSolveSource } from '../../src/cuda/kernels/solve/index.js';
import { gesvLayout, smallSolveLayout } from '../../src/cuda/kernels/solve/generate-small.js';
import { smallGrid } from '../../src/cuda/kernels/common/warp-slots.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { compileHarnesses, HOST_EMULATION_SKIP, parseHarnessNumber } from '../helpers/recording-device.js';
import { arrayOf, build, check, COMPLEX_KINDS, isComplex, isSingle, partsOf, REAL_KINDS, type Case, type Request, type Runner } from '../helpers/rounded-pivot.js';

const skip = HOST_EMULATION_SKIP;
const HARNESS = resolve('test/helpers/lu-solve-host-harness.cpp');
const reference = open({ backend: 'reference' });

type Trans = 'N' | 'T' | 'C';
/** A rounded-pivot case (float32 / complex64) or the subnormal-diagonal one (float64 / complex128, kind undefined). */
interface Spec { readonly op: 'gesv' | 'getrs'; readonly dtype: ElementType; readonly n: number; readonly count: number; readonly nrhs: number; readonly kind?: string; readonly trans: Trans }

const SPECS: readonly Spec[] = [
  { op: 'gesv', dtype: 'float32', n: 2, count: 1, nrhs: 1, kind: 'roundsUp', trans: 'N' },
  { op: 'gesv', dtype: 'float32', n: 17, count: 5, nrhs: 5, kind: 'roundsUp', trans: 'N' },
  { op: 'gesv', dtype: 'float64', n: 2, count: 1, nrhs: 1, trans: 'N' },
  { op: 'gesv', dtype: 'float64', n: 32, count: 3, nrhs: 6, trans: 'N' },
  { op: 'getrs', dtype: 'float32', n: 2, count: 1, nrhs: 1, kind: 'roundsUp', trans: 'N' },
  { op: 'getrs', dtype: 'float32', n: 9, count: 5, nrhs: 2, kind: 'roundsUp', trans: 'T' },
  { op: 'getrs', dtype: 'float64', n: 32, count: 2, nrhs: 5, trans: 'N' },
  { op: 'getrs', dtype: 'float64', n: 7, count: 2, nrhs: 1, trans: 'T' },
  { op: 'gesv', dtype: 'complex64', n: 2, count: 1, nrhs: 1, kind: 'reOnly', trans: 'N' },
  { op: 'gesv', dtype: 'complex64', n: 24, count: 5, nrhs: 5, kind: 'imOnly', trans: 'N' },
  { op: 'gesv', dtype: 'complex128', n: 2, count: 1, nrhs: 1, trans: 'N' },
  { op: 'gesv', dtype: 'complex128', n: 32, count: 3, nrhs: 3, trans: 'N' },
  { op: 'getrs', dtype: 'complex64', n: 2, count: 1, nrhs: 1, kind: 'reOnly', trans: 'N' },
  { op: 'getrs', dtype: 'complex64', n: 8, count: 5, nrhs: 2, kind: 'imOnly', trans: 'C' },
  { op: 'getrs', dtype: 'complex128', n: 32, count: 2, nrhs: 3, trans: 'T' },
];

const label = (s: Spec): string => `${s.op}${s.op === 'getrs' ? ` '${s.trans}'` : ''} ${s.dtype} ${s.kind ?? 'subnormal diagonal'} n=${s.n} count=${s.count} nrhs=${s.nrhs}`;
const partsDtype = (t: ElementType): 'float32' | 'float64' => (isSingle(t) ? 'float32' : 'float64');

/** The rounded-pivot case of a single-precision spec. */
function caseOf(s: Spec): Case {
  const kind = (isComplex(s.dtype) ? COMPLEX_KINDS : REAL_KINDS).find((k) => k.name === s.kind);
  assert.ok(kind !== undefined, s.kind);
  return { dtype: s.dtype, n: s.n, kind, count: s.count, nrhs: s.nrhs };
}

/**
 * float64 / complex128: unit upper triangles (the strict part in [-1/2, 1/2]) whose last diagonal
 * entry is subnormal; b ones but 2^-1060 in the last row (x(n-1) = 2^10, times (1 - i) / 2 complex).
 */
function subnormalData(s: Spec): { a: FloatArray; b: FloatArray } {
  const e = partsOf(s.dtype), n = s.n;
  const a = arrayOf(s.dtype, e * n * n * s.count), b = arrayOf(s.dtype, e * n * s.nrhs * s.count);
  let seed = 7 * n + s.count;
  const next = (): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 - 0.5; };
  for (let m = 0; m < s.count; m++) {
    const at = (i: number, j: number): number => e * (m * n * n + i + j * n);
    for (let j = 0; j < n; j++) {
      // op 'T' / 'C': the last column's strict part zero, so that x(n-1) = 2^10 there too
      if (s.trans === 'N' || j < n - 1) for (let i = 0; i < j; i++) for (let q = 0; q < e; q++) a[at(i, j) + q] = next();
      a[at(j, j)] = 1;
    }
    a[at(n - 1, n - 1)] = 2 ** -1070;
    if (e === 2) a[at(n - 1, n - 1) + 1] = 2 ** -1070;
    for (let c = 0; c < s.nrhs; c++) for (let i = 0; i < n; i++) b[e * (m * n * s.nrhs + i + c * n)] = i === n - 1 ? 2 ** -1060 : 1;
  }
  return { a, b };
}

const dataOf = (s: Spec): { a: FloatArray; b: FloatArray } => (s.kind === undefined ? subnormalData(s) : build(caseOf(s)));

function kernelOf(s: Spec): { src: KernelSource; grid: number; block: number } {
  const parts = partsDtype(s.dtype);
  if (isComplex(s.dtype)) {
    if (s.op === 'gesv') {
      const p = planComplexGesv(parts, s.n, s.nrhs, 'strided', 'strided');
      return { src: complexGesvSource(p), grid: complexSlotGrid(complexGesvLayout(p), s.count), block: p.warps * 32 };
    }
    const p = planComplexGetrs(parts, s.n, s.nrhs, s.trans, 'strided', 'strided');
    return { src: complexGetrsSource(p), grid: complexSlotGrid(complexGetrsLayout(p), s.count), block: p.warps * 32 };
  }
  const problem = { dtype: parts, n: s.n, nrhs: s.nrhs, kindA: 'strided', kindB: 'strided' } as const;
  if (s.op === 'gesv') {
    const p = planFusedSolve(problem);
    return { src: gesvSmallSource(p), grid: smallGrid(gesvLayout(p), s.count), block: p.warps * 32 };
  }
  const p = planSmallSolve(problem, s.trans === 'N' ? 'lu-N' : 'lu-T');
  return { src: smallSolveSource(p), grid: smallGrid(smallSolveLayout(p), s.count), block: p.warps * 32 };
}

interface Prepared { spec: Spec; dir: string; exe: string; defines: string[]; grid: number; block: number; entry: string }

function prepare(s: Spec, index: number, root: string): Prepared {
  const { src, grid, block } = kernelOf(s);
  const dir = join(root, `case${index}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kernel.cu'), src.source);
  const defines = [`-DENTRY=${src.entry}`, ...(isComplex(s.dtype) ? ['-DCOMPLEX'] : [])];
  return { spec: s, dir, exe: join(dir, 'h'), defines, grid, block, entry: src.entry };
}

/** Runs the prepared kernel on the request's A, B and pivots (A and B back to back in one buffer): results written back. */
function emulate(p: Prepared, r: Request): void {
  const { n, count, nrhs } = p.spec;
  const e = partsOf(p.spec.dtype);
  const lenA = n * n * count, len = lenA + n * nrhs * count;
  const values: string[] = [];
  for (let i = 0; i < lenA; i++) values.push(Array.from({ length: e }, (_, q) => String(r.a.data[e * i + q])).join(' '));
  for (let i = 0; i < len - lenA; i++) values.push(Array.from({ length: e }, (_, q) => String(r.b.data[e * i + q])).join(' '));
  const input = [`${p.grid} ${p.block} ${count} ${nrhs} ${r.pivotStride} 0 ${n * n} ${n} ${lenA} ${n * nrhs} ${n} ${len}`, ...values, ...Array.from(r.ipiv, String)].join('\n') + '\n';
  const run = spawnSync(p.exe, { input, maxBuffer: 1 << 28, timeout: 300_000 });
  assert.equal(run.status, 0, `${p.entry}: status ${run.status} ${run.signal ?? ''} ${run.stderr.toString()}`);
  const lines = run.stdout.toString().trim().split('\n');
  assert.equal(lines.length, len + count * r.pivotStride + count, `${p.entry}: the buffer, pivots and infos back`);
  for (let i = 0; i < len; i++) {
    const parts = lines[i]!.split(' ').map(parseHarnessNumber);
    for (let q = 0; q < e; q++) {
      if (i < lenA) r.a.data[e * i + q] = parts[q]!;
      else r.b.data[e * (i - lenA) + q] = parts[q]!;
    }
  }
  r.ipiv.set(lines.slice(len, len + count * r.pivotStride).map(Number));
  r.info.set(lines.slice(len + count * r.pivotStride).map(Number));
}

function requestOf(s: Spec, a: FloatArray, b: FloatArray): Request {
  const complex = isComplex(s.dtype) ? { dtype: s.dtype } : {};
  return {
    a: strided(a, { rows: s.n, cols: s.n, count: s.count, ...complex }), b: strided(b, { rows: s.n, cols: s.nrhs, count: s.count, ...complex }),
    ipiv: new Int32Array(s.n * s.count).fill(-9), pivotStride: s.n, info: new Int32Array(s.count).fill(-7),
  };
}

/** The reference's X (gesv, or getrs on its own factors), with those factors and pivots for getrs. */
function referenceOf(s: Spec): { x: FloatArray; lu: FloatArray; ipiv: Int32Array } {
  const { a, b } = dataOf(s);
  const r = requestOf(s, a, b);
  if (s.op === 'gesv') {
    const out = reference.gesv({ a: r.a, b: r.b });
    return { x: b, lu: a, ipiv: Int32Array.from(out.ipiv as Int32Array) };
  }
  const f = reference.getrf({ a: r.a });
  const ipiv = Int32Array.from(f.ipiv as Int32Array);
  const lu = a.slice();
  reference.getrs({ trans: s.trans, a: r.a, b: r.b, ipiv: f.ipiv });
  return { x: b, lu, ipiv };
}

/** Every member's X finite and within 64 n eps of its largest |X| of the reference's. */
function closeToReference(s: Spec, got: FloatArray, want: FloatArray): void {
  const e = partsOf(s.dtype), per = e * s.n * s.nrhs;
  const eps = isSingle(s.dtype) ? 2 ** -24 : 2 ** -53;
  for (let m = 0; m < s.count; m++) {
    const g = got.subarray(m * per, (m + 1) * per), w = want.subarray(m * per, (m + 1) * per);
    assert.ok(w.every(Number.isFinite), `${label(s)}: the reference's X of member ${m} is finite`);
    assert.ok(g.every(Number.isFinite), `${label(s)}: member ${m}'s X is not finite: ${[...g.subarray(0, 2 * e)].join(', ')} ...`);
    const tol = 64 * s.n * eps * Math.max(...Array.from(w, Math.abs));
    g.forEach((v, i) => assert.ok(Math.abs(v - w[i]!) <= tol, `${label(s)}: member ${m} X part ${i}: ${v}, the reference's ${w[i]}`));
  }
}

describe('LU solves with a subnormal diagonal in U run on the host', { skip, timeout: 1_800_000 }, () => {
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-lu-subnormal-')) : '';
  const prepared = skip === undefined ? SPECS.map((s, i) => prepare(s, i, root)) : [];
  before(() => compileHarnesses(HARNESS, prepared));
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [i, s] of SPECS.entries()) {
    it(label(s), () => {
      const p = prepared[i]!;
      const want = referenceOf(s);
      if (s.op === 'gesv') {
        let x: FloatArray | undefined;
        const runner: Runner = (_op, r) => { emulate(p, r); x = r.b.data; };
        if (s.kind !== undefined) check('host', caseOf(s), 'gesv', runner);
        else {
          const { a, b } = dataOf(s);
          const r = requestOf(s, a, b);
          runner('gesv', r);
          assert.deepEqual([...r.info], new Array<number>(s.count).fill(0), `${label(s)}: info`);
          assert.deepEqual([...r.ipiv], [...want.ipiv], `${label(s)}: pivots`);
        }
        closeToReference(s, x!, want.x);
        return;
      }
      const { b } = dataOf(s);
      const r = requestOf(s, want.lu.slice(), b);
      r.ipiv.set(want.ipiv);
      emulate(p, r);
      assert.deepEqual([...r.info], new Array<number>(s.count).fill(0), `${label(s)}: info`);
      closeToReference(s, r.b.data, want.x);
    });
  }
});
