/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20; about 2.5 minutes on two cores): the
 * generated trsm and trmm leaf kernels themselves, compiled as C++ for the host
 * (test/helpers/cuda-host-harness.cpp: a thread per CUDA thread, a barrier per __syncthreads) and
 * launched with the shapes the planner gives, against the CPU reference: every variant in float64,
 * some in float32, NaN in everything a kernel must not read or write, several matrices per block,
 * stride-0 A, and a grid shorter than the vectors (the kernel's chunk loop). A check of the CUDA
 * source without a GPU; the GPU suite (test/gpu/trsm.test.ts) is the real one.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import { cpuTrmm } from '../../src/cpu/trmm.js';
import { cpuTrsm } from '../../src/cpu/trsm.js';
import { leafChunk, leafShape, trsmLeafSource } from '../../src/cuda/kernels/trsm/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { Rng } from '../helpers/random.js';
import { TRSM_VARIANTS, caseName, compareOutput, inStrided, triangularData, trsmTolerance } from '../helpers/trsm-data.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

const HARNESS = resolve('test/helpers/cuda-host-harness.cpp');

test('trsm and trmm leaf kernels run on the host match the CPU reference', { skip, timeout: 900_000 }, () => {
  const tuning = tuningFor('sm_90', 'trsm');
  const rng = new Rng(7);
  const dir = mkdtempSync(join(tmpdir(), 'myriad-host-'));
  try {
    for (const dtype of ['float64', 'float32'] as DType[]) for (const op of ['trsm', 'trmm'] as const) for (const [vi, c] of TRSM_VARIANTS.entries()) {
      if (dtype === 'float32' && vi % 5 !== 0) continue;
      const src = trsmLeafSource({ op, dtype, kind: 'strided', ...c });
      writeFileSync(join(dir, 'kernel.cu'), src.source.replace('extern __shared__ __align__(16) unsigned char smemBytes[];', 'unsigned char* smemBytes = g_shared;'));
      execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, `-I${dir}`, HARNESS, '-o', join(dir, 'h')]);
      for (const [t, nvec, count, gridY, broadcast] of [[1, 1, 3, 0, false], [5, 3, 4, 0, true], [17, 40, 3, 0, false], [64, 70, 2, 1, false], [33, 1, 5, 0, false], [8, 100, 2, 1, false], [40, 33, 1, 0, false]] as const) {
        const [m, n] = c.side === 'left' ? [t, nvec] : [nvec, t];
        const { la, lb, A, B } = triangularData(rng, dtype, c, t, m, n, count, broadcast);
        const alpha = t % 2 === 1 ? -2.5 : 1;
        const want = B.slice();
        (op === 'trsm' ? cpuTrsm : cpuTrmm)({
          ...c, alpha, a: strided(A, { rows: t, cols: t, count, ld: la.ld, stride: la.stride, offset: la.offset }),
          b: strided(want, { rows: m, cols: n, count, ld: lb.ld, stride: lb.stride, offset: lb.offset }),
        });
        const sh = leafShape(dtype, t, nvec, count, tuning.vectorsMax, tuning, 226 * 1024);
        const gx = Math.ceil(count / sh.matrices), gy = gridY || Math.ceil(nvec / leafChunk(sh));
        const text = (x: FloatArray): string => [...x].map((v) => (Number.isNaN(v) ? 'nan' : String(v))).join('\n');
        const input = `${[count, t, nvec, sh.ldx, alpha, la.offset, la.stride, la.ld, lb.offset, lb.stride, lb.ld, gx, gy, sh.vectors, sh.matrices, sh.sharedBytes, A.length, B.length].join(' ')}\n${text(A)}\n${text(B)}\n`;
        const r = spawnSync(join(dir, 'h'), { input, maxBuffer: 1 << 28 });
        if (r.status !== 0) throw new Error(`host harness failed (${r.status}): ${r.stderr.toString()}`);
        const got = want.slice();
        r.stdout.toString().trim().split('\n').forEach((l, i) => { got[i] = /nan/.test(l) ? NaN : Number(l); });
        compareOutput(got, want, inStrided(lb), trsmTolerance(dtype, t), `${op} ${dtype} ${caseName(c)} t=${t} nvec=${nvec} count=${count} gridY=${gy}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
