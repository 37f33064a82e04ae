/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20; a g++ build per kernel, about 90 of them:
 * about 15 minutes on two busy cores): trmm's register leaf (generate-register-leaf.ts) compiled as C++ for the
 * host (test/helpers/cuda-host-harness-rleaf.cpp: a thread per CUDA thread, __syncwarp a block
 * barrier) and launched with the planner's shape, against the CPU reference: every variant at
 * orders 1, 2, 7 (compiled at 8), 16, 17 (at 24), 31, 32 in float64 and two of them (one of 16 ... 32) in float32; alpha
 * -2.5, 1 and 0; NaN on the unit diagonal, in A's other triangle, around B and inside B (it spreads
 * as the reference's loops spread it); several chunks of vectors, a ragged last one, and a block
 * with fewer tasks than warps.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import { cpuTrmm } from '../../src/cpu/trmm.js';
import { REGISTER_LEAF_LANES, registerLeafOrder, registerLeafShape, trmmRegisterLeafSource } from '../../src/cuda/kernels/trsm/index.js';
import { Rng } from '../helpers/random.js';
import { TRSM_VARIANTS, caseName, compareOutput, fillTriangle, inStrided, layoutLength, oddLayout, randomBuffer, trsmTolerance } from '../helpers/trsm-data.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

const HARNESS = resolve('test/helpers/cuda-host-harness-rleaf.cpp');
const ORDERS = [1, 2, 7, 16, 17, 31, 32];

/** [vectors a matrix, matrices, alpha, stride-0 A]: one ragged chunk, two chunks (the second ragged), alpha 0, a shared triangle. */
const CASES = [[1, 3, -2.5, false], [45, 3, 1, false], [32, 5, 0, false], [70, 2, -2.5, true]] as const;

test('trmm register leaf run on the host matches the CPU reference', { skip, timeout: 3_600_000 }, () => {
  const rng = new Rng(11);
  const dir = mkdtempSync(join(tmpdir(), 'myriad-rleaf-'));
  try {
    for (const dtype of ['float64', 'float32'] as DType[]) for (const [vi, c] of TRSM_VARIANTS.entries()) {
      const orders = dtype === 'float64' ? ORDERS : [ORDERS[vi % 3]!, ORDERS[3 + (vi % 4)]!];
      for (const order of new Set(orders.map(registerLeafOrder))) {
        const src = trmmRegisterLeafSource({ dtype, kind: 'strided', ...c, order });
        writeFileSync(join(dir, 'kernel.cu'), src.source.replace('extern __shared__ __align__(16) unsigned char smemBytes[];', 'unsigned char* smemBytes = g_shared;'));
        execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, `-I${dir}`, HARNESS, '-o', join(dir, 'h')]);
        for (const t of orders.filter((x) => registerLeafOrder(x) === order)) for (const [nvec, count, alpha, broadcast] of CASES) {
          const [m, n] = c.side === 'left' ? [t, nvec] : [nvec, t];
          const la = oddLayout(t, t, count, broadcast), lb = oddLayout(m, n, count);
          const A = randomBuffer(rng, dtype, layoutLength(la));
          for (let i = 0; i < (broadcast ? 1 : count); i++) fillTriangle(rng, A, la.offset + i * la.stride, la.ld, t, c.uplo, c.diag);
          const inA = inStrided(la);
          for (let e = 0; e < A.length; e++) if (!inA(e)) A[e] = NaN;
          const B = randomBuffer(rng, dtype, layoutLength(lb));
          const inB = inStrided(lb);
          for (let e = 0; e < B.length; e++) if (!inB(e)) B[e] = NaN;
          // A NaN inside B (the first matrix's element (m / 2, n / 2)): it spreads down its vector.
          B[lb.offset + (m >> 1) + (n >> 1) * lb.ld] = NaN;
          const want = B.slice();
          cpuTrmm({
            ...c, alpha, a: strided(A, { rows: t, cols: t, count, ld: la.ld, stride: la.stride, offset: la.offset }),
            b: strided(want, { rows: m, cols: n, count, ld: lb.ld, stride: lb.stride, offset: lb.offset }),
          });
          const shape = registerLeafShape({ dtype, side: c.side, count, sharedLimit: 226 * 1024 }, t, nvec);
          const tasks = count * Math.ceil(nvec / REGISTER_LEAF_LANES);
          const gx = Math.ceil(tasks / shape.warps);
          const text = (x: FloatArray): string => [...x].map((v) => (Number.isNaN(v) ? 'nan' : String(v))).join('\n');
          const input = `${[count, t, nvec, alpha, la.offset, la.stride, la.ld, lb.offset, lb.stride, lb.ld, gx, shape.warps, shape.sharedBytes, A.length, B.length].join(' ')}\n${text(A)}\n${text(B)}\n`;
          const r = spawnSync(join(dir, 'h'), { input, maxBuffer: 1 << 28 });
          if (r.status !== 0) throw new Error(`host harness failed (${r.status}): ${r.stderr.toString()}`);
          const got = want.slice();
          r.stdout.toString().trim().split('\n').forEach((l, i) => { got[i] = /nan/.test(l) ? NaN : Number(l); });
          compareOutput(got, want, inB, trsmTolerance(dtype, t), `trmm register leaf ${dtype} ${caseName(c)} order=${order} t=${t} nvec=${nvec} count=${count} alpha=${alpha} warps=${shape.warps}`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
