/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the generated WY kernel (common/wy.ts)
 * itself, compiled as C++ for the host (test/helpers/wy-host-harness.cpp) and run on geqrf's
 * reflectors of random matrices (and a zero column: tau = 0): V must be the reflectors with their
 * ones and zeros explicit (A's upper part is NaN and must not leak), and I - Y V^T (Y = V T) or
 * I - V Y^T (Y = V T^T) must equal the product H(0) ... H(ib-1) formed one reflector at a time:
 * the defining property of the compact WY form, independent of how T is computed. Both dtypes,
 * both forms of Y, ib < NB and ib = NB, r = ib (a square last panel).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import type { DType } from '../../src/core/dtype.js';
import { wyFactorSource, type WyFactorParams } from '../../src/cuda/kernels/common/wy.js';
import { qrCase, referenceQr } from '../helpers/qr-checks.js';
import { Rng } from '../helpers/random.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const HARNESS = resolve('test/helpers/wy-host-harness.cpp');
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };

test('the WY kernel on the host: V explicit, I - V T V^T equals the reflectors\' product', { skip, timeout: 1_800_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-wy-'));
  const rng = new Rng(1821);
  try {
    const cases: [DType, number, number, number, boolean][] = [
      ['float64', 40, 8, 8, false], ['float64', 37, 5, 8, true], ['float64', 70, 32, 32, false], ['float32', 50, 16, 16, true], ['float32', 12, 12, 16, false],
    ];
    for (const [dtype, r, ib, nb, transT] of cases) {
      const p: WyFactorParams = { dtype, kind: 'strided', nb, transT };
      const src = wyFactorSource(p);
      writeFileSync(join(dir, 'kernel.cu'), src.source);
      const exe = join(dir, src.entry);
      execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, `-I${dir}`, HARNESS, '-o', exe]);
      const count = 2;
      const ldA = r + 1, strideA = ldA * ib + 3, strideT = ib + 1;
      const A = new Float64Array(count * strideA).fill(NaN), T = new Float64Array(count * strideT).fill(NaN);
      const facts = Array.from({ length: count }, (_, q) => {
        const x = qrCase(rng, q === 1 ? 'zero-column' : 'random', r, ib, dtype);
        const f = referenceQr(x, r, ib);
        const round = (v: number): number => (dtype === 'float32' ? Math.fround(v) : v);
        for (let j = 0; j < ib; j++) { for (let i = j + 1; i < r; i++) A[q * strideA + i + j * ldA] = round(f.f[i + j * r]!); T[q * strideT + j] = round(f.tau[j]!); }
        return f;
      });
      const input = `${count} ${r} ${ib} ${ldA} ${strideA} ${strideT}\n${Array.from(A).join(' ')}\n${Array.from(T).join(' ')}\n`;
      const out = execFileSync(exe, { input, maxBuffer: 1 << 28 }).toString().trim().split('\n').map(Number);
      const sw = r * nb;
      const what = `wy ${JSON.stringify(p)} r=${r} ib=${ib}`;
      facts.forEach((_, q) => {
        const v = (i: number, l: number): number => out[q * sw + i + l * r]!;
        const y = (i: number, l: number): number => out[count * sw + q * sw + i + l * r]!;
        const a = (i: number, l: number): number => A[q * strideA + i + l * ldA]!;
        for (let l = 0; l < ib; l++) for (let i = 0; i < r; i++) assert.equal(v(i, l), i > l ? a(i, l) : i === l ? 1 : 0, `${what} #${q}: V(${i}, ${l})`);
        // H(0) ... H(ib-1) applied to the identity from the last reflector on.
        const H = new Float64Array(r * r);
        for (let i = 0; i < r; i++) H[i + i * r] = 1;
        for (let j = ib - 1; j >= 0; j--) {
          const tj = T[q * strideT + j]!;
          for (let c = 0; c < r; c++) {
            let s = 0;
            for (let i = j; i < r; i++) s += v(i, j) * H[i + c * r]!;
            for (let i = j; i < r; i++) H[i + c * r] -= tj * s * v(i, j);
          }
        }
        let worst = 0;
        for (let c = 0; c < r; c++) for (let i = 0; i < r; i++) {
          let s = 0;
          for (let l = 0; l < ib; l++) s += transT ? v(i, l) * y(c, l) : y(i, l) * v(c, l);
          worst = Math.max(worst, Math.abs((i === c ? 1 : 0) - s - H[i + c * r]!));
        }
        assert.ok(worst / (r * EPS[dtype]) < 30, `${what} #${q}: max |I - V T V^T - H| = ${worst} (${worst / (r * EPS[dtype])} r eps)`);
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
