/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the gesvd rows kernels (a lane per row, G
 * and V in registers: generate-gesvd-rows.ts) compiled as C++ for the host (test/helpers/
 * jacobi-host-harness.cpp) and launched with their shape (idle matrix slots in a block, one case over two blocks):
 * square, tall and wide, 9 ... 32, both dtypes, values only, one side and both; random, zero,
 * rank-deficient, graded and repeated matrices and one with NaN. Checked against the CPU
 * reference's singular values and info, and by ||A - U S VT||, ||U^T U - I||, ||VT VT^T - I||
 * (over max(m, n) eps, < 30); outputs not asked for stay untouched. test/gpu/gesvd-rows.test.ts is the real one.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { strided } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import { cpuGesvd } from '../../src/cpu/lapack/index.js';
import { GESVD_ROWS_WARPS, gesvdRowsShape, gesvdRowsSource, selectGesvd } from '../../src/cuda/kernels/jacobi/index.js';
import { generalCase, mat, orthoResidual, svdResidual } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const HARNESS = resolve('test/helpers/jacobi-host-harness.cpp');
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;
const KINDS = ['random', 'rank-deficient', 'graded', 'repeated'] as const;
/** Matrix i of case c: #1 random with a NaN, #2 zero (every column completed), the others in turn. */
const kindOf = (c: number, i: number): (typeof KINDS)[number] | 'zero' => (i === 1 ? 'random' : i === 2 ? 'zero' : KINDS[(i + c) % KINDS.length]!);

/**
 * [dtype, m, n, wantU, wantVt, count]: square, tall and wide, odd and even, every job; few matrices
 * (the emulation's warp barriers cost ~10 s a 32 x 32 matrix), one case over two blocks.
 */
const CASES: readonly (readonly [DType, number, number, boolean, boolean, number])[] = [
  ['float64', 9, 9, true, true, 6], ['float64', 17, 10, true, true, 3], ['float64', 12, 31, true, true, 3], ['float64', 32, 32, true, true, 3],
  ['float64', 24, 24, true, false, 3], ['float64', 16, 16, false, false, 9],
  ['float32', 31, 31, true, true, 3], ['float32', 10, 17, true, true, 3], ['float32', 32, 20, false, true, 3], ['float32', 12, 12, false, false, 5],
  ['float32', 16, 16, true, true, 4],
];

test('gesvd rows kernels on the host: residuals and the reference values', { skip, timeout: 1_800_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-gesvd-rows-'));
  const rng = new Rng(53);
  try {
    for (const [c, [dtype, m, n, wantU, wantVt, count]] of CASES.entries()) {
      const eps = EPS[dtype];
      {
        const k = Math.min(m, n);
        const choice = selectGesvd({ dtype, m, n, wantU, wantVt, kind: 'strided' }, { force: { design: 'rows' } });
        assert.equal(choice.design, 'rows');
        const src = gesvdRowsSource(choice.design === 'rows' ? choice.params : assert.fail('rows'));
        const { perBlock } = gesvdRowsShape(m, n);
        const mats = Array.from({ length: count }, (_, i) => generalCase(rng, kindOf(c, i), m, n).a)
          .map((a) => ({ ...a, d: a.d.map((x) => (dtype === 'float32' ? Math.fround(x) : x)) }));
        const bad = 1;
        mats[bad]!.d[m * n - 1] = NaN;
        const ld = m + 1;
        const stride = ld * n + 3;
        const flat = new Float64Array(count * stride);
        mats.forEach((a, i) => { for (let j = 0; j < n; j++) for (let r = 0; r < m; r++) flat[i * stride + r + j * ld] = a.d[r + j * m]!; });
        writeFileSync(join(dir, 'kernel.cu'), src.source);
        const exe = join(dir, src.entry);
        execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, '-DGESVD', `-I${dir}`, HARNESS, '-o', exe]);
        const input = `${count} ${Math.ceil(count / perBlock)} ${32 * GESVD_ROWS_WARPS} ${m} ${n} ${ld} ${stride}\n${Array.from(flat).join(' ')}\n`;
        const out = execFileSync(exe, { input, maxBuffer: 1 << 28 }).toString().trim().split('\n').map(Number);
        const info = out.slice(0, count);
        const s = out.slice(count, count + count * k);
        const u = out.slice(count + count * k, count + count * k + count * m * k);
        const vt = out.slice(count + count * k + count * m * k);
        const refS = new Float64Array(count * k);
        const refInfo = new Int32Array(count);
        cpuGesvd({ a: strided(flat.slice(), { rows: m, cols: n, count, ld, stride }), s: strided(refS, { rows: k, cols: 1, count }), info: refInfo });
        const what = `gesvd rows ${dtype} ${m}x${n} ${wantU ? 'U' : '-'}${wantVt ? 'V' : '-'}`;
        if (!wantU) assert.ok(u.every((x) => x === 0), `${what}: U written`);
        if (!wantVt) assert.ok(vt.every((x) => x === 0), `${what}: VT written`);
        mats.forEach((a, i) => {
          const at = `${what} #${i}`;
          assert.equal(info[i], refInfo[i], `${at}: info`);
          const si = s.slice(i * k, (i + 1) * k);
          const ui = mat(m, k);
          ui.d.set(u.slice(i * m * k, (i + 1) * m * k));
          const vti = mat(k, n);
          vti.d.set(vt.slice(i * k * n, (i + 1) * k * n));
          if (i === bad) {
            assert.equal(info[i], k + 2, `${at}: NaN flagged`);
            assert.ok(si.every(Number.isNaN), `${at}: NaN s`);
            if (wantU) assert.ok(ui.d.every(Number.isNaN), `${at}: NaN U`);
            if (wantVt) assert.ok(vti.d.every(Number.isNaN), `${at}: NaN VT`);
            return;
          }
          assert.equal(info[i], 0, `${at}: converged`);
          let norm = 0;
          for (const x of a.d) norm += x * x;
          norm = Math.sqrt(norm);
          si.forEach((x, j) => assert.ok(Math.abs(x - refS[i * k + j]!) <= LIMIT * Math.max(m, n) * eps * norm, `${at}: s[${j}] ${x} vs ${refS[i * k + j]}`));
          for (let j = 1; j < k; j++) assert.ok(si[j - 1]! >= si[j]!, `${at}: s descending`);
          if (wantU) assert.ok(orthoResidual(ui, eps) < LIMIT, `${at}: ||U^T U - I|| ratio ${orthoResidual(ui, eps)}`);
          if (wantVt) assert.ok(orthoResidual(vti, eps, true) < LIMIT, `${at}: ||VT VT^T - I|| ratio ${orthoResidual(vti, eps, true)}`);
          if (wantU && wantVt) assert.ok(svdResidual(a, ui, si, vti, eps) < LIMIT, `${at}: ||A - USVT|| ratio ${svdResidual(a, ui, si, vti, eps)}`);
        });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
