/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20; a few minutes on two cores): the
 * generated syrk and lauum leaf kernels themselves, compiled as C++ for the host
 * (test/helpers/cuda-host-harness-syrk.cpp) and launched with the shapes the planners give,
 * against the CPU references: both uplo (and trans), both precisions, NaN in everything a kernel
 * must not read (A's padding; C's written triangle where beta = 0; lauum's other triangle),
 * several matrices per block, several diagonal blocks per launch (syrk), k in several chunks and
 * k = 0; lauum's register leaf at every tile and accumulator shape, with infinities and NaN in the
 * triangle. A check of the CUDA source without a GPU; the GPU suites are the real ones.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import { cpuLauum } from '../../src/cpu/lapack/index.js';
import { cpuSyrk } from '../../src/cpu/syrk.js';
import { lauumLeafShape, lauumLeafSource, lauumRegisterLeafSource, lauumRegisterShape } from '../../src/cuda/kernels/lauum/index.js';
import { leafTile, syrkLeafShape, syrkLeafSource, type SyrkLeafParams } from '../../src/cuda/kernels/syrk/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { Rng } from '../helpers/random.js';
import { parseHarnessNumber } from '../helpers/recording-device.js';
import { inTriangle, syrkTolerance } from '../helpers/syrk-data.js';
import { compareOutput, inStrided, layoutLength, oddLayout, randomBuffer } from '../helpers/trsm-data.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

const HARNESS = resolve('test/helpers/cuda-host-harness-syrk.cpp');
const DTYPES: DType[] = ['float64', 'float32'];
const text = (x: FloatArray): string => [...x].map((v) => (Number.isNaN(v) ? 'nan' : String(v))).join('\n');

/** Builds the harness around one kernel; returns a function that runs it on an input and parses the output into `out`. */
function harness(dir: string, src: KernelSource, lauum: boolean): (input: string, out: FloatArray) => void {
  writeFileSync(join(dir, 'kernel.cu'), src.source.replace('extern __shared__ __align__(16) unsigned char smemBytes[];', 'unsigned char* smemBytes = g_shared;'));
  execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, ...(lauum ? ['-DLAUUM'] : []), `-I${dir}`, HARNESS, '-o', join(dir, 'h')]);
  return (input, out) => {
    const r = spawnSync(join(dir, 'h'), { input, maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`host harness failed (${r.status}): ${r.stderr.toString()}`);
    r.stdout.toString().trim().split('\n').forEach((l, i) => { out[i] = parseHarnessNumber(l); });
  };
}

test('syrk leaf kernels run on the host match the CPU reference', { skip, timeout: 900_000 }, () => {
  const tuning = tuningFor('sm_90', 'syrk');
  const rng = new Rng(8);
  const dir = mkdtempSync(join(tmpdir(), 'myriad-host-'));
  try {
    for (const dtype of DTYPES) for (const uplo of ['lower', 'upper'] as const) for (const trans of ['N', 'T'] as const) {
      for (const [t, k, count, chunk, alpha, beta, blocks] of [
        [1, 3, 5, 32, 1, 0, 1], [5, 40, 7, 8, -2.5, 0.5, 1], [17, 33, 3, 32, 1, 0, 1], [33, 70, 2, 16, -2.5, 1, 1],
        [64, 37, 2, 32, 1, 0, 1], [8, 0, 3, 32, 1, -2.5, 1], [12, 9, 3, 8, 1, 0.5, 3], [64, 5, 1, 32, -1, 0, 2],
      ] as const) {
        if (dtype === 'float32' && t > 17) continue;
        const p: SyrkLeafParams = { dtype, uplo, trans, kind: 'strided', ...leafTile(t), chunk };
        const run = harness(dir, syrkLeafSource(p), false);
        // C is (blocks t) x (blocks t): the launch computes its diagonal blocks.
        const n = t * blocks;
        const [ar, ac] = trans === 'N' ? [n, k] : [k, n];
        const la = oddLayout(ar, ac, count), lc = oddLayout(n, n, count);
        const A = randomBuffer(rng, dtype, layoutLength(la));
        const inA = inStrided(la);
        for (let e = 0; e < A.length; e++) if (!inA(e)) A[e] = NaN;
        const C = randomBuffer(rng, dtype, layoutLength(lc));
        const tri = inTriangle(lc, uplo), inC = inStrided(lc);
        const written = (e: number): boolean => {
          if (!tri(e)) return false;
          const q = (e - lc.offset) % lc.stride, i = q % lc.ld, j = Math.floor(q / lc.ld);
          return Math.floor(i / t) === Math.floor(j / t);
        };
        for (let e = 0; e < C.length; e++) if (!inC(e) || (beta === 0 && written(e))) C[e] = NaN;
        const want = C.slice();
        for (let b = 0; b < blocks; b++) {
          const o = b * t;
          cpuSyrk({
            uplo, trans, alpha, beta,
            a: strided(A, { rows: trans === 'N' ? t : k, cols: trans === 'N' ? k : t, count, ld: la.ld, stride: la.stride, offset: la.offset + (trans === 'N' ? o : o * la.ld) }),
            c: strided(want, { rows: t, cols: t, count, ld: lc.ld, stride: lc.stride, offset: lc.offset + o + o * lc.ld }),
          });
        }
        const sh = syrkLeafShape(p, count, tuning, 226 * 1024);
        const got = C.slice();
        run(`${[count, t, k, alpha, beta, la.offset, la.stride, la.ld, lc.offset, lc.stride, lc.ld, Math.ceil(count / sh.matrices), blocks, sh.side, sh.matrices, sh.sharedBytes, A.length, C.length].join(' ')}\n${text(A)}\n${text(C)}\n`, got);
        compareOutput(got, want, written, syrkTolerance(dtype, k), `syrk ${dtype} ${uplo}/${trans} t=${t} k=${k} count=${count} chunk=${chunk} blocks=${blocks}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('lauum leaf kernels run on the host match the CPU reference', { skip, timeout: 900_000 }, () => {
  const tuning = tuningFor('sm_90', 'lauum');
  const rng = new Rng(9);
  const dir = mkdtempSync(join(tmpdir(), 'myriad-host-'));
  try {
    for (const dtype of DTYPES) for (const uplo of ['lower', 'upper'] as const) {
      const run = harness(dir, lauumLeafSource({ dtype, uplo, kind: 'strided' }), true);
      for (const [t, count] of [[1, 5], [2, 9], [5, 7], [17, 3], [32, 2], [31, 3]] as const) {
        const l = oddLayout(t, t, count);
        const A = randomBuffer(rng, dtype, layoutLength(l));
        const tri = inTriangle(l, uplo);
        for (let e = 0; e < A.length; e++) if (!tri(e)) A[e] = NaN;
        const want = A.slice();
        cpuLauum({ uplo, a: strided(want, { rows: t, cols: t, count, ld: l.ld, stride: l.stride, offset: l.offset }), info: new Int32Array(count) });
        const sh = lauumLeafShape(dtype, t, count, tuning, 226 * 1024);
        const got = A.slice();
        run(`${[count, t, sh.lds, l.offset, l.stride, l.ld, Math.ceil(count / sh.matrices), sh.threads, sh.matrices, sh.sharedBytes, A.length].join(' ')}\n${text(A)}\n`, got);
        compareOutput(got, want, tri, syrkTolerance(dtype, t), `lauum ${dtype} ${uplo} t=${t} count=${count}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('lauum register leaf kernels run on the host match the CPU reference, infinities and NaN included', { skip, timeout: 900_000 }, () => {
  const tuning = tuningFor('sm_90', 'lauum');
  const rng = new Rng(10);
  const dir = mkdtempSync(join(tmpdir(), 'myriad-host-'));
  try {
    for (const dtype of DTYPES) for (const uplo of ['lower', 'upper'] as const) for (const [tile, reg] of [[8, 1], [8, 2], [16, 2], [32, 2], [32, 4], [64, 4], [64, 8]] as const) for (const [pipelined, packed] of [[false, false], [true, false], [false, true], [true, true]] as const) {
      const params = { dtype, uplo, kind: 'strided' as const, tile, reg, pipelined, packed };
      const run = harness(dir, lauumRegisterLeafSource(params), true);
      for (const t of [1, 2, 5, tile / 2 + 1, tile - 1, tile].filter((x) => x >= 1 && x <= tile)) {
        const count = t > 32 ? 3 : 11;
        const l = oddLayout(t, t, count);
        const A = randomBuffer(rng, dtype, layoutLength(l));
        const tri = inTriangle(l, uplo);
        for (let e = 0; e < A.length; e++) if (!tri(e)) A[e] = NaN;
        // Non-finite elements in the last matrix's triangle: they reach exactly the reference's elements.
        if (t >= 5) for (const [i, j, v] of [[t - 1, 1, Infinity], [3, 2, NaN], [4, 4, -Infinity]] as const) {
          const [r, c] = uplo === 'lower' ? [i, j] : [j, i];
          A[l.offset + (count - 1) * l.stride + r + c * l.ld] = v;
        }
        const want = A.slice();
        cpuLauum({ uplo, a: strided(want, { rows: t, cols: t, count, ld: l.ld, stride: l.stride, offset: l.offset }), info: new Int32Array(count) });
        const sh = lauumRegisterShape(params, t, count, tuning, 226 * 1024);
        const got = A.slice();
        // The pipelined form's persistent blocks: two, so that each takes several groups in turn.
        const groups = Math.ceil(count / sh.matrices);
        run(`${[count, t, sh.lds, l.offset, l.stride, l.ld, pipelined ? Math.min(2, groups) : groups, sh.threads * sh.matrices, 1, sh.sharedBytes, A.length].join(' ')}\n${text(A)}\n`, got);
        compareOutput(got, want, tri, syrkTolerance(dtype, t), `lauum register leaf t${tile} r${reg}${pipelined ? ' pipelined' : ''}${packed ? ' packed' : ''} ${dtype} ${uplo} t=${t} count=${count}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
