/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20; a g++ build per kernel, about 90 of them a
 * leaf: about 15 minutes on two busy cores; MYRIAD_TRMM_LEAF=register|product runs one, MYRIAD_TRMM_ORDERS=40,64
 * only those orders): trmm's register
 * leaf (generate-register-leaf.ts) and product leaf (generate-product-leaf.ts) compiled as C++ for the
 * host (test/helpers/cuda-host-harness-rleaf.cpp: a thread per CUDA thread, __syncwarp and
 * __syncthreads block barriers) and launched with the planner's shape, against the CPU reference: every variant at
 * orders 1, 2, 7 (compiled at 8), 16, 17 (at 24), 31, 32 (and the product leaf's 40 and 64) in float64 and two of them (one of 16 ... 32) in float32; alpha
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
import {
  PRODUCT_LEAF_VECTORS, productLeafOrder, productLeafShape, REGISTER_LEAF_LANES, registerLeafOrder, registerLeafShape, trmmProductLeafSource, trmmRegisterLeafSource,
  type TrmmRegisterLeafParams,
} from '../../src/cuda/kernels/trsm/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { Rng } from '../helpers/random.js';
import { TRSM_VARIANTS, caseName, compareOutput, inStrided, triangularData, trsmTolerance } from '../helpers/trsm-data.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

const HARNESS = resolve('test/helpers/cuda-host-harness-rleaf.cpp');
const ORDERS = [1, 2, 7, 16, 17, 31, 32];

/** A leaf design as the test drives it: its compiled order, source and launch (grid x, block x and y, shared bytes). */
interface Leaf {
  readonly name: 'register' | 'product';
  readonly order: (t: number) => number;
  /** The triangles' orders in float64 (float32 takes two of them a variant). */
  readonly orders: readonly number[];
  readonly source: (p: TrmmRegisterLeafParams) => KernelSource;
  readonly launch: (p: TrmmRegisterLeafParams, t: number, nvec: number, count: number) => readonly [number, number, number, number];
}

const LEAVES: readonly Leaf[] = [
  {
    name: 'register', order: registerLeafOrder, orders: ORDERS, source: trmmRegisterLeafSource,
    launch: (p, t, nvec, count) => {
      const shape = registerLeafShape({ dtype: p.dtype, side: p.side, count, sharedLimit: 226 * 1024 }, t, nvec);
      return [Math.ceil((count * Math.ceil(nvec / REGISTER_LEAF_LANES)) / shape.warps), REGISTER_LEAF_LANES, shape.warps, shape.sharedBytes];
    },
  },
  {
    name: 'product', order: productLeafOrder, orders: [...ORDERS, 40, 64], source: trmmProductLeafSource,
    launch: (p, _t, nvec, count) => {
      const shape = productLeafShape(p);
      return [Math.ceil((count * Math.ceil(nvec / PRODUCT_LEAF_VECTORS)) / shape.tasks), shape.threadsPerTask, shape.tasks, shape.sharedBytes];
    },
  },
];
const only = process.env['MYRIAD_TRMM_LEAF'];
/** MYRIAD_TRMM_ORDERS=40,64: only these orders (a quicker rerun of some kernels). */
const onlyOrders = process.env['MYRIAD_TRMM_ORDERS']?.split(',').map(Number);

/** [vectors a matrix, matrices, alpha, stride-0 A]: one ragged chunk, two chunks (the second ragged), alpha 0, a shared triangle. */
const CASES = [[1, 3, -2.5, false], [45, 3, 1, false], [32, 5, 0, false], [70, 2, -2.5, true]] as const;

for (const leaf of LEAVES.filter((l) => only === undefined || l.name === only)) test(`trmm ${leaf.name} leaf run on the host matches the CPU reference`, { skip, timeout: 3_600_000 }, () => {
  const rng = new Rng(11);
  const dir = mkdtempSync(join(tmpdir(), 'myriad-rleaf-'));
  try {
    for (const dtype of ['float64', 'float32'] as DType[]) for (const [vi, c] of TRSM_VARIANTS.entries()) {
      const orders = (dtype === 'float64' ? leaf.orders : [leaf.orders[vi % 3]!, leaf.orders[3 + (vi % (leaf.orders.length - 3))]!])
        .filter((t) => onlyOrders === undefined || onlyOrders.includes(t));
      for (const order of new Set(orders.map(leaf.order))) {
        const params: TrmmRegisterLeafParams = { dtype, kind: 'strided', ...c, order };
        const src = leaf.source(params);
        writeFileSync(join(dir, 'kernel.cu'), src.source.replace('extern __shared__ __align__(16) unsigned char smemBytes[];', 'unsigned char* smemBytes = g_shared;'));
        execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, `-I${dir}`, HARNESS, '-o', join(dir, 'h')]);
        for (const t of orders.filter((x) => leaf.order(x) === order)) for (const [nvec, count, alpha, broadcast] of CASES) {
          const [m, n] = c.side === 'left' ? [t, nvec] : [nvec, t];
          const { la, lb, A, B } = triangularData(rng, dtype, c, t, m, n, count, broadcast);
          // A NaN inside B (the first matrix's element (m / 2, n / 2)): it spreads down its vector.
          B[lb.offset + (m >> 1) + (n >> 1) * lb.ld] = NaN;
          const want = B.slice();
          cpuTrmm({
            ...c, alpha, a: strided(A, { rows: t, cols: t, count, ld: la.ld, stride: la.stride, offset: la.offset }),
            b: strided(want, { rows: m, cols: n, count, ld: lb.ld, stride: lb.stride, offset: lb.offset }),
          });
          const [gx, bx, by, shared] = leaf.launch(params, t, nvec, count);
          const text = (x: FloatArray): string => [...x].map((v) => (Number.isNaN(v) ? 'nan' : String(v))).join('\n');
          const input = `${[count, t, nvec, alpha, la.offset, la.stride, la.ld, lb.offset, lb.stride, lb.ld, gx, bx, by, shared, A.length, B.length].join(' ')}\n${text(A)}\n${text(B)}\n`;
          const r = spawnSync(join(dir, 'h'), { input, maxBuffer: 1 << 28 });
          if (r.status !== 0) throw new Error(`host harness failed (${r.status}): ${r.stderr.toString()}`);
          const got = want.slice();
          r.stdout.toString().trim().split('\n').forEach((l, i) => { got[i] = /nan/.test(l) ? NaN : Number(l); });
          compareOutput(got, want, inStrided(lb), trsmTolerance(dtype, t), `trmm ${leaf.name} leaf ${dtype} ${caseName(c)} order=${order} t=${t} nvec=${nvec} count=${count} alpha=${alpha} block=${bx}x${by}`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
