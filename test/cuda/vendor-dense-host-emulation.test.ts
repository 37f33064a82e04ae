/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++): the dense gesvd route's kernels (src/cuda/vendor/
 * kernels-dense.ts) compiled as C++ for the host (test/helpers/vendor-dense-host-harness.cpp) and run
 * over a strided batch with ld > m, a gap and an offset, as it is and transposed (the m < n case):
 * the pack writes G = A or A^T densely with NaN and Inf as 0 and the matrix flagged; the unpack of G
 * read the same way writes A back at its layout (NaN throughout a flagged matrix, the padding
 * untouched); the values kernel writes s and info 0, k + 1 (the vendor's info > 0) or k + 2.
 * A check of the CUDA source without a GPU; test/gpu/eig-large-vendor.test.ts is the real one.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { blockShape } from '../../src/cuda/vendor/kernels.js';
import { densePackSource, denseUnpackSource, gesvdValuesSource } from '../../src/cuda/vendor/kernels-dense.js';
import { Rng } from '../helpers/random.js';
import { parseHarnessNumber } from '../helpers/recording-device.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const HARNESS = resolve('test/helpers/vendor-dense-host-harness.cpp');
const same = (x: number, y: number): boolean => Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y));

test('dense pack, unpack and values kernels on the host: tall and wide, NaN and Inf members, info codes', { skip, timeout: 600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-vendor-dense-'));
  const rng = new Rng(5);
  try {
    for (const [m, n] of [[7, 5], [5, 9], [40, 3]] as const) {
      const transpose = m < n;
      const k = Math.min(m, n), count = 4, ld = m + 2, stride = ld * n + 3, offset = 2, sStride = k + 2;
      const a = new Float64Array(offset + count * stride + 2).fill(-0.25);
      for (let q = 0; q < count; q++) for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) a[offset + q * stride + i + j * ld] = rng.uniform();
      a[offset + 1 * stride + (m - 1) + (n - 1) * ld] = NaN;
      a[offset + 3 * stride + 0] = -Infinity;
      const vendor = [0, 0, 2, 0];
      const parts = blockShape(n).parts, threads = blockShape(m).threads;
      const sources = [densePackSource('float64', 'strided', transpose), denseUnpackSource('float64', 'strided', transpose), gesvdValuesSource('float64', 'strided')];
      writeFileSync(join(dir, 'kernel.cu'), sources.map((s) => s.source).join('\n'));
      const exe = join(dir, `dense-${m}x${n}`);
      execFileSync('g++', ['-std=c++20', '-O1', `-DPACK=${sources[0]!.entry}`, `-DUNPACK=${sources[1]!.entry}`, `-DVALUES=${sources[2]!.entry}`,
        `-DPARTS=${parts}`, `-DTHREADS=${threads}`, `-I${dir}`, `-I${resolve('test/helpers')}`, HARNESS, '-o', exe]);
      const input = `${m} ${n} ${count} ${ld} ${stride} ${offset} ${transpose ? 1 : 0} ${k} ${sStride}\n${Array.from(a).join(' ')}\n${vendor.join(' ')}\n`;
      const out = execFileSync(exe, { input, maxBuffer: 1 << 26 }).toString().trim().split('\n').map(parseHarnessNumber);
      let at = 0;
      const take = (length: number): number[] => { const r = out.slice(at, at + length); at += length; return r; };
      const g = take(count * m * n), flags = take(count), x = take(a.length), s = take(count * sStride + 1), info = take(count);
      assert.equal(at, out.length);
      const what = `${m} x ${n}`;
      assert.deepEqual(flags, [0, 1, 0, 1], `${what}: flags`);
      const A = (q: number, i: number, j: number): number => a[offset + q * stride + i + j * ld]!;
      for (let q = 0; q < count; q++) for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) {
        const v = A(q, i, j), want = Number.isFinite(v) ? v : 0;
        const got = g[q * m * n + (transpose ? j + i * n : i + j * m)]!;
        assert.ok(same(got, want), `${what}: G of #${q} at (${i}, ${j}): ${got}, want ${want}`);
      }
      for (let e = 0; e < a.length; e++) {
        const r = e - offset, q = Math.floor(r / stride), w = r - q * stride, i = w % ld, j = Math.floor(w / ld);
        const inside = r >= 0 && q < count && j < n && i < m;
        const want = !inside ? -0.5 : flags[q] ? NaN : a[e]!;
        assert.ok(same(x[e]!, want), `${what}: unpacked element ${e}: ${x[e]}, want ${want}`);
      }
      for (let e = 0; e < s.length; e++) {
        const r = e - 1, q = Math.floor(r / sStride), i = r - q * sStride;
        const inside = r >= 0 && q < count && i < k;
        const want = !inside ? -0.5 : flags[q] ? NaN : g[q * m * n + i]!;
        assert.ok(same(s[e]!, want), `${what}: s element ${e}: ${s[e]}, want ${want}`);
      }
      assert.deepEqual(info, [0, k + 2, k + 1, k + 2], `${what}: info`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
