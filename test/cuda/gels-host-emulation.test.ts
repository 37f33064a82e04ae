/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): gels's own kernels (the check after the
 * factorisation, the finish pass over B) and the common transpose, compiled as C++ for the host
 * (test/helpers/cuda-host-shim.h: a thread per CUDA thread) and run on strided batches with odd ld
 * and stride and NaN padding, against what they must do: info = j + 1 at the first exact zero on
 * R's diagonal, the states SOLVE / SINGULAR / ZERO (an R that is all zero, whatever lies below it),
 * tau zeroed and (tall) B's top rows kept aside or (wide) R := I only where the matrix is not
 * solved, a NaN diagonal solved (info 0); the finish restoring or zeroing exactly the rows its
 * state names, over a grid shorter than the elements; the transpose. The borrowed launches (geqrf,
 * ormqr, trsm) have their own host emulation tests; the whole composition: test/gpu/gels.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import type { DType } from '../../src/core/dtype.js';
import { transposeSource } from '../../src/cuda/kernels/common/transpose.js';
import { CHECK_THREADS, GELS_SINGULAR, GELS_SOLVE, GELS_ZERO, gelsCheckSource, gelsFinishSource } from '../../src/cuda/kernels/gels/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { Rng } from '../helpers/random.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const SHIM = resolve('test/helpers/cuda-host-shim.h');

/** Reads n numbers (or nan) from the harness's output, from `at`. */
const take = (out: string[], at: { i: number }, n: number): number[] => Array.from({ length: n }, () => { const v = out[at.i++]!; return /nan/i.test(v) ? NaN : Number(v); });
const text = (x: ArrayLike<number>): string => Array.from(x, (v) => (Number.isNaN(v) ? 'nan' : String(v))).join(' ');
const same = (x: number, y: number): boolean => x === y || (Number.isNaN(x) && Number.isNaN(y));

/** Compiles `main` after the shim and the kernel; returns a runner of stdin to output lines. */
function build(dir: string, src: KernelSource, main: string): (input: string) => string[] {
  writeFileSync(join(dir, 'kernel.cu'), src.source);
  const file = join(dir, `${src.entry}.cpp`);
  writeFileSync(file, `#include "${SHIM}"\nusing std::fma;\n#include "kernel.cu"\n${main}`);
  const exe = join(dir, src.entry);
  execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-I${dir}`, file, '-o', exe]);
  return (input) => execFileSync(exe, { input, maxBuffer: 1 << 26 }).toString().trim().split(/\s+/);
}

const READ = `static std::vector<real> readReal(long long n) { std::vector<real> v(n + 1); for (long long i = 0; i < n; ++i) { char s[64]; if (scanf("%63s", s) != 1) exit(3); v[i] = (real)strtod(s, nullptr); } return v; }
static void print(const real* v, long long n) { for (long long i = 0; i < n; ++i) printf("%.17g\\n", (double)v[i]); }`;

const CHECK_MAIN = `${READ}
int main() {
  long long count, k, nrhs, ldA, strideA, ldB, strideB;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld", &count, &k, &nrhs, &ldA, &strideA, &ldB, &strideB) != 7) return 2;
  std::vector<real> A = readReal(count * strideA), B = readReal(count * strideB);
  std::vector<real> T(count * k + 1, (real)7), W(count * k * nrhs + 1, (real)NAN);
  std::vector<int> info(count, -7), status(count, -9);
  run_grid((unsigned)((count + ${CHECK_THREADS} - 1) / ${CHECK_THREADS}), 1, ${CHECK_THREADS}, 1, 1, 0, [&] {
    ENTRY(A.data(), 0, strideA, (int)ldA, T.data(), 0, k, (int)k, B.data(), 0, strideB, (int)ldB, W.data(), 0, k * nrhs, (int)k,
          info.data(), nullptr, (int)count, status.data(), (int)k, (int)nrhs);
  });
  for (long long i = 0; i < count; ++i) printf("%d\\n%d\\n", info[i], status[i]);
  print(T.data(), count * k); print(W.data(), count * k * nrhs); print(A.data(), count * strideA); print(B.data(), count * strideB);
}`;

const FINISH_MAIN = `${READ}
int main() {
  long long count, rows, nrhs, edge, ldB, strideB, gx;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld", &count, &rows, &nrhs, &edge, &ldB, &strideB, &gx) != 7) return 2;
  std::vector<real> B = readReal(count * strideB), W = readReal(count * edge * nrhs);
  std::vector<int> status(count);
  for (long long i = 0; i < count; ++i) if (scanf("%d", &status[i]) != 1) return 3;
  run_grid((unsigned)gx, 1, 256, 1, 1, 0, [&] {
    ENTRY(B.data(), 0, strideB, (int)ldB, W.data(), 0, edge * nrhs, (int)edge, status.data(), (int)count, (int)rows, (int)nrhs, (int)edge);
  });
  print(B.data(), count * strideB);
}`;

const TRANSPOSE_MAIN = `${READ}
int main() {
  long long count, rows, cols, ldA, strideA, ldB, strideB, gx;
  if (scanf("%lld %lld %lld %lld %lld %lld %lld %lld", &count, &rows, &cols, &ldA, &strideA, &ldB, &strideB, &gx) != 8) return 2;
  std::vector<real> A = readReal(count * strideA), B(count * strideB + 1, (real)NAN);
  run_grid((unsigned)gx, 1, 256, 1, 1, 0, [&] { ENTRY(A.data(), 0, strideA, (int)ldA, B.data(), 0, strideB, (int)ldB, (int)count, (int)rows, (int)cols); });
  print(B.data(), count * strideB);
}`;

const withEntry = (main: string, entry: string): string => main.replaceAll('ENTRY(', `${entry}(`);

type RKind = 'good' | 'singular' | 'zero' | 'nan' | 'first';

test('the check: info, states, tau zeroed, B aside (tall) or R := I (wide) only where not solved', { skip, timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-gels-'));
  const rng = new Rng(181);
  try {
    for (const [dtype, tall] of [['float64', true], ['float64', false], ['float32', true], ['float32', false]] as [DType, boolean][]) {
      const src = gelsCheckSource({ dtype, tall, factor: 'strided', b: 'strided' });
      const run = build(dir, src, withEntry(CHECK_MAIN, src.entry));
      // The factor holds R (k x k upper) in its top rows; B (rows x nrhs); odd ld and stride.
      const [k, fRows, nrhs] = [5, 9, 3];
      const kinds: RKind[] = ['good', 'singular', 'zero', 'nan', 'first', 'good', 'singular'];
      // 130 matrices: more than one block of the check.
      const all: RKind[] = Array.from({ length: 130 }, (_, i) => kinds[i % kinds.length]!);
      const count = all.length;
      const [ldA, ldB] = [fRows + 2, fRows + 1];
      const [strideA, strideB] = [ldA * k + 3, ldB * nrhs + 1];
      const A = new Float64Array(count * strideA).fill(NaN), B = new Float64Array(count * strideB).fill(NaN);
      all.forEach((kind, i) => {
        for (let j = 0; j < k; j++) for (let p = 0; p < fRows; p++) {
          // Upper: R; below: junk (reflectors), never zero, which the check must not read.
          let v = p <= j ? (kind === 'zero' ? 0 : rng.uniform(0.5, 1) * (rng.uniform() < 0 ? -1 : 1)) : rng.uniform(2, 3);
          if (p === j && kind === 'singular' && j === 2) v = 0;
          if (p === j && kind === 'first' && j === 0) v = -0;
          if (p === j && kind === 'nan' && j === 1) v = NaN;
          A[i * strideA + p + j * ldA] = dtype === 'float32' ? Math.fround(v) : v;
        }
        for (let j = 0; j < nrhs; j++) for (let p = 0; p < fRows; p++) B[i * strideB + p + j * ldB] = dtype === 'float32' ? Math.fround(rng.uniform()) : rng.uniform();
      });
      const out = run(`${count} ${k} ${nrhs} ${ldA} ${strideA} ${ldB} ${strideB}\n${text(A)}\n${text(B)}\n`);
      const at = { i: 0 };
      const states = Array.from({ length: count }, () => take(out, at, 2) as [number, number]);
      const T = take(out, at, count * k), W = take(out, at, count * k * nrhs), gotA = take(out, at, count * strideA), gotB = take(out, at, count * strideB);
      const what = `check ${dtype} ${tall ? 'tall' : 'wide'}`;
      all.forEach((kind, i) => {
        const [info, state] = states[i]!;
        const want = kind === 'singular' ? [3, GELS_SINGULAR] : kind === 'first' ? [1, GELS_SINGULAR] : kind === 'zero' ? [0, GELS_ZERO] : [0, GELS_SOLVE];
        assert.deepEqual([info, state], want, `${what} #${i} (${kind}): info, state`);
        const solved = state === GELS_SOLVE;
        for (let j = 0; j < k; j++) assert.equal(T[i * k + j], solved ? 7 : 0, `${what} #${i}: tau[${j}]`);
        for (let e = 0; e < k * nrhs; e++) {
          const [p, j] = [e % k, Math.floor(e / k)];
          const aside = tall && state === GELS_SINGULAR;
          assert.ok(same(W[i * k * nrhs + e]!, aside ? B[i * strideB + p + j * ldB]! : NaN), `${what} #${i}: B aside at ${e}`);
        }
        for (let e = 0; e < strideA; e++) {
          const [p, j] = [e % ldA, Math.floor(e / ldA)];
          const inR = j < k && p <= j;
          const want = !tall && !solved && inR ? (p === j ? 1 : 0) : A[i * strideA + e]!;
          assert.ok(same(gotA[i * strideA + e]!, want), `${what} #${i} (${kind}): factor element ${e} is ${gotA[i * strideA + e]}, expected ${want}`);
        }
      });
      for (let e = 0; e < B.length; e++) assert.ok(same(gotB[e]!, B[e]!), `${what}: B changed at ${e}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the finish: tall restores B(0:n) where singular and zeroes B where A = 0; wide zeroes B(m:n) where solved', { skip, timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-gels-'));
  const rng = new Rng(182);
  try {
    for (const [dtype, tall] of [['float64', true], ['float64', false], ['float32', true], ['float32', false]] as [DType, boolean][]) {
      const src = gelsFinishSource({ dtype, tall, b: 'strided' });
      const run = build(dir, src, withEntry(FINISH_MAIN, src.entry));
      const [rows, nrhs, edge, count] = [11, 4, 6, 40];
      const ldB = rows + 2, strideB = ldB * nrhs + 5;
      const r = (): number => (dtype === 'float32' ? Math.fround(rng.uniform()) : rng.uniform());
      const B = Float64Array.from({ length: count * strideB }, r);
      for (let e = 0; e < B.length; e++) if (e % strideB >= ldB * nrhs || (e % strideB) % ldB >= rows) B[e] = NaN;
      const W = Float64Array.from({ length: count * edge * nrhs }, r);
      const status = Array.from({ length: count }, (_, i) => [GELS_SOLVE, GELS_SINGULAR, GELS_ZERO][i % 3]!);
      // 2 blocks of 256 threads for 40 * 44 elements: the grid-stride loop.
      const got = take(run(`${count} ${rows} ${nrhs} ${edge} ${ldB} ${strideB} 2\n${text(B)}\n${text(W)}\n${status.join(' ')}\n`), { i: 0 }, B.length);
      for (let e = 0; e < B.length; e++) {
        const [i, q] = [Math.floor(e / strideB), e % strideB];
        const [p, j] = [q % ldB, Math.floor(q / ldB)];
        const inside = j < nrhs && p < rows;
        const s = status[i]!;
        let want = B[e]!;
        if (inside && s === GELS_ZERO) want = 0;
        if (inside && tall && s === GELS_SINGULAR && p < edge) want = W[i * edge * nrhs + p + j * edge]!;
        if (inside && !tall && s === GELS_SOLVE && p >= edge) want = 0;
        assert.ok(same(got[e]!, want), `finish ${dtype} ${tall ? 'tall' : 'wide'}: #${i} (state ${s}) element (${p}, ${j}) is ${got[e]}, expected ${want}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the transpose: Y = X^T for every matrix, padding untouched', { skip, timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-gels-'));
  const rng = new Rng(183);
  try {
    const src = transposeSource({ dtype: 'float64', src: 'strided', dst: 'strided' });
    const run = build(dir, src, withEntry(TRANSPOSE_MAIN, src.entry));
    for (const [rows, cols, count] of [[1, 1, 3], [4, 9, 7], [9, 4, 7], [33, 17, 2]] as const) {
      const [ldA, ldB] = [rows + 1, cols + 2];
      const [strideA, strideB] = [ldA * cols + 1, ldB * rows + 3];
      const A = Float64Array.from({ length: count * strideA }, () => rng.uniform());
      const got = take(run(`${count} ${rows} ${cols} ${ldA} ${strideA} ${ldB} ${strideB} 2\n${text(A)}\n`), { i: 0 }, count * strideB);
      for (let e = 0; e < got.length; e++) {
        const [i, q] = [Math.floor(e / strideB), e % strideB];
        const [p, j] = [q % ldB, Math.floor(q / ldB)];
        const want = p < cols && j < rows ? A[i * strideA + j + p * ldA]! : NaN;
        assert.ok(same(got[e]!, want), `transpose ${rows}x${cols}: #${i} (${p}, ${j}) is ${got[e]}, expected ${want}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
