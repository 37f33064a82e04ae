/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20; a g++ build per kernel, about 80:
 * MYRIAD_TRMM_ORDERS=33,65 runs only those orders): trmm's pipelined kernel (generate-pipelined.ts)
 * compiled as C++ for the host (test/helpers/cuda-host-harness-trmm-pipe.cpp: a thread per CUDA
 * thread, __syncthreads a block barrier; cp.async a plain copy there, so the stages, their indices
 * and barriers run as written, without the overlap) and launched with fewer persistent blocks than
 * tasks, against the CPU reference: every side-left variant at orders 1, 2, 7 (compiled at 8), 16,
 * 17 (at 24), 31, 32, 33 (at 48), 64, 65 (at 96) in float64 (two stages) and at two of them a
 * variant in float32 (three stages); strided and list batches; alpha -2.5, 1 and 0; NaN on the unit
 * diagonal, in A's other triangle, around B and inside B (it spreads as the reference's loops
 * spread it); one panel, a ragged second panel, a shared triangle (stride 0).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import { cpuTrmm } from '../../src/cpu/trmm.js';
import type { OperandKind } from '../../src/cuda/kernels/common/batch-pointer.js';
import {
  PIPELINED_THREADS, PIPELINED_VECTORS, pipelinedOrder, pipelinedSharedBytes, trmmPipelinedSource, type TrmmPipelinedParams,
} from '../../src/cuda/kernels/trsm/index.js';
import { Rng } from '../helpers/random.js';
import { TRSM_VARIANTS, caseName, compareOutput, inStrided, triangularData, trsmTolerance } from '../helpers/trsm-data.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

const HARNESS = resolve('test/helpers/cuda-host-harness-trmm-pipe.cpp');
const ORDERS = [1, 2, 7, 16, 17, 31, 32, 33, 64, 65];
const onlyOrders = process.env['MYRIAD_TRMM_ORDERS']?.split(',').map(Number);
const LEFT = TRSM_VARIANTS.filter((c) => c.side === 'left');

/** [vectors a matrix, matrices, alpha, stride-0 A, persistent blocks]: one ragged panel, two panels (the second ragged), alpha 0, a shared triangle. */
const CASES = [[1, 3, -2.5, false, 2], [45, 3, 1, false, 4], [32, 5, 0, false, 2], [70, 2, -2.5, true, 1]] as const;

test('trmm pipelined kernel run on the host matches the CPU reference', { skip, timeout: 3_600_000 }, () => {
  const rng = new Rng(13);
  const dir = mkdtempSync(join(tmpdir(), 'myriad-trmm-pipe-'));
  try {
    for (const dtype of ['float64', 'float32'] as DType[]) for (const [vi, c] of LEFT.entries()) {
      const orders = (dtype === 'float64' ? ORDERS : [ORDERS[vi % 4]!, ORDERS[4 + (vi % 6)]!])
        .filter((t) => onlyOrders === undefined || onlyOrders.includes(t));
      // Half the variants as list batches (a pointer a matrix), the others strided.
      const kind: OperandKind = vi % 2 === 0 ? 'strided' : 'pointer';
      for (const order of new Set(orders.map(pipelinedOrder))) {
        const params: TrmmPipelinedParams = { dtype, kind, ...c, order, stages: dtype === 'float64' ? 2 : 3 };
        const src = trmmPipelinedSource(params);
        writeFileSync(join(dir, 'kernel.cu'), src.source.replace('extern __shared__ __align__(16) unsigned char smemBytes[];', 'unsigned char* smemBytes = g_shared;'));
        execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, ...(kind === 'pointer' ? ['-DPOINTER'] : []), `-I${dir}`, HARNESS, '-o', join(dir, 'h')]);
        for (const t of orders.filter((x) => pipelinedOrder(x) === order)) for (const [nvec, count, alpha, broadcast, blocks] of CASES) {
          if (broadcast && kind === 'pointer') continue;   // a list's matrices are its own
          const { la, lb, A, B } = triangularData(rng, dtype, c, t, t, nvec, count, broadcast);
          // A NaN inside B (the first matrix's element (t / 2, nvec / 2)): it spreads down its vector.
          B[lb.offset + (t >> 1) + (nvec >> 1) * lb.ld] = NaN;
          const want = B.slice();
          cpuTrmm({
            ...c, alpha, a: strided(A, { rows: t, cols: t, count, ld: la.ld, stride: la.stride, offset: la.offset }),
            b: strided(want, { rows: t, cols: nvec, count, ld: lb.ld, stride: lb.stride, offset: lb.offset }),
          });
          const tasks = count * Math.ceil(nvec / PIPELINED_VECTORS);
          const gx = Math.min(tasks, blocks);
          const text = (x: FloatArray): string => [...x].map((v) => (Number.isNaN(v) ? 'nan' : String(v))).join('\n');
          const input = `${[count, t, nvec, alpha, la.offset, la.stride, la.ld, lb.offset, lb.stride, lb.ld, gx, PIPELINED_THREADS, 1, pipelinedSharedBytes(params), A.length, B.length].join(' ')}\n${text(A)}\n${text(B)}\n`;
          const r = spawnSync(join(dir, 'h'), { input, maxBuffer: 1 << 28 });
          if (r.status !== 0) throw new Error(`host harness failed (${r.status}): ${r.stderr.toString()}`);
          const got = want.slice();
          r.stdout.toString().trim().split('\n').forEach((l, i) => { got[i] = /nan/.test(l) ? NaN : Number(l); });
          compareOutput(got, want, inStrided(lb), trsmTolerance(dtype, t), `trmm pipelined ${dtype} ${kind} ${caseName(c)} order=${order} t=${t} nvec=${nvec} count=${count} alpha=${alpha} blocks=${gx}`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
