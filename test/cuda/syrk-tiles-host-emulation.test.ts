/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20; several minutes on two cores): the syrk
 * tile kernels (generate-tiles.ts) compiled as C++ for the host (test/helpers/cuda-host-harness-syrk.cpp,
 * the leaf's harness: the same arguments, n in the leaf's t) and launched with the shapes the
 * planner gives, against the CPU reference: both uplo and trans, both precisions, the table's
 * shapes and a forced 64 x 64 tile, n = 1 ... 128 with k != n (several k-steps and a part step),
 * beta 0 over a NaN triangle (BLAS overwrites it), 1 and 0.5, NaN in A's padding (never read) and
 * one NaN inside A (spreading along its row and column of C as the reference's does), several
 * matrices per block with the last block part-full. A check of the CUDA source without a GPU.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import { cpuSyrk } from '../../src/cpu/syrk.js';
import { syrkTilesLaunch, syrkTilesShapeFor, syrkTilesSource, type SyrkTilesParams, type SyrkTilesShape } from '../../src/cuda/kernels/syrk/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { Rng } from '../helpers/random.js';
import { inTriangle, syrkTolerance } from '../helpers/syrk-data.js';
import { compareOutput, inStrided, layoutLength, oddLayout, randomBuffer } from '../helpers/trsm-data.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

const HARNESS = resolve('test/helpers/cuda-host-harness-syrk.cpp');
const DTYPES: DType[] = ['float64', 'float32'];
const SIZES = [1, 2, 15, 16, 17, 31, 32, 33, 64, 100, 128];
const BETAS = [0, 1, 0.5];
/** A forced shape beside the table's: one 64 x 64 tile up to 64, two panels above. */
const FORCED: SyrkTilesShape = { tile: 64, reg: 4, chunk: 16, minBlocks: 0 };
const text = (x: FloatArray): string => [...x].map((v) => (Number.isNaN(v) ? 'nan' : String(v))).join('\n');

/** Builds the harness around one kernel; returns a function that runs it on an input and parses the output into `out`. */
function harness(dir: string, p: SyrkTilesParams): (input: string, out: FloatArray) => void {
  const src = syrkTilesSource(p);
  const sub = join(dir, src.entry);
  execFileSync('mkdir', ['-p', sub]);
  writeFileSync(join(sub, 'kernel.cu'), src.source.replace('extern __shared__ __align__(16) unsigned char smemBytes[];', 'unsigned char* smemBytes = g_shared;'));
  execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, `-I${sub}`, HARNESS, '-o', join(sub, 'h')]);
  return (input, out) => {
    const r = spawnSync(join(sub, 'h'), { input, maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`host harness failed (${r.status}): ${r.stderr.toString()}`);
    r.stdout.toString().trim().split('\n').forEach((l, i) => { out[i] = /nan/.test(l) ? NaN : Number(l); });
  };
}

test('syrk tile kernels run on the host match the CPU reference', { skip, timeout: 1_800_000 }, () => {
  const tuning = tuningFor('sm_90', 'syrk');
  const rng = new Rng(2611);
  const dir = mkdtempSync(join(tmpdir(), 'myriad-host-'));
  try {
    for (const dtype of DTYPES) for (const uplo of ['lower', 'upper'] as const) for (const trans of ['N', 'T'] as const) {
      const variant = (uplo === 'lower' ? 0 : 2) + (trans === 'N' ? 0 : 1);
      const runs = new Map<string, (input: string, out: FloatArray) => void>();
      const runFor = (p: SyrkTilesParams): ((input: string, out: FloatArray) => void) => {
        const key = JSON.stringify(p);
        if (!runs.has(key)) runs.set(key, harness(dir, p));
        return runs.get(key)!;
      };
      SIZES.forEach((n, c) => {
        const shapes = [syrkTilesShapeFor(n, tuning.tiles[dtype]), ...(n === 33 || n === 100 || n === 2 ? [FORCED] : [])];
        // Every beta up to 33; above, one a size, rotating with the variant (the emulation runs a
        // thread a CUDA thread: large n with many k-steps take minutes).
        const betas = n <= 33 ? BETAS : [BETAS[(c + variant) % 3]!];
        for (const shape of shapes) for (const beta of betas) {
          // k below, above and far from n (a part step, several steps); the count leaves the last block part-full.
          const k = [n + 3, Math.max(1, n - 5), n <= 33 ? 2 * n + 7 : 21][(c + variant) % 3]!;
          const count = 5;
          const alpha = beta === 1 ? -2.5 : 1.5;
          const p: SyrkTilesParams = { dtype, uplo, trans, kind: 'strided', ...shape };
          const run = runFor(p);
          const [ar, ac] = trans === 'N' ? [n, k] : [k, n];
          const la = oddLayout(ar, ac, count), lc = oddLayout(n, n, count);
          const A = randomBuffer(rng, dtype, layoutLength(la));
          const inA = inStrided(la);
          for (let e = 0; e < A.length; e++) if (!inA(e)) A[e] = NaN;
          // One NaN inside matrix 1's op(A), at op(A)(i0, l0): C's row and column i0 become NaN.
          const i0 = Math.floor(n / 2), l0 = Math.floor(k / 3);
          if (beta === 0.5) A[la.offset + la.stride + (trans === 'N' ? i0 + l0 * la.ld : l0 + i0 * la.ld)] = NaN;
          const C = randomBuffer(rng, dtype, layoutLength(lc));
          const written = inTriangle(lc, uplo), inC = inStrided(lc);
          for (let e = 0; e < C.length; e++) if (!inC(e) || (beta === 0 && written(e))) C[e] = NaN;
          const want = C.slice();
          cpuSyrk({
            uplo, trans, alpha, beta,
            a: strided(A, { rows: ar, cols: ac, count, ld: la.ld, stride: la.stride, offset: la.offset }),
            c: strided(want, { rows: n, cols: n, count, ld: lc.ld, stride: lc.stride, offset: lc.offset }),
          });
          const launch = syrkTilesLaunch(p, n, count, tuning, 226 * 1024);
          const got = C.slice();
          run(`${[count, n, k, alpha, beta, la.offset, la.stride, la.ld, lc.offset, lc.stride, lc.ld, launch.blocks, 1, launch.side, launch.matrices, launch.sharedBytes, A.length, C.length].join(' ')}\n${text(A)}\n${text(C)}\n`, got);
          compareOutput(got, want, written, syrkTolerance(dtype, k), `syrk tiles ${dtype} ${uplo}/${trans} ${JSON.stringify(shape)} n=${n} k=${k} beta=${beta}`);
        }
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
