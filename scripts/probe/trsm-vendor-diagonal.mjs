// cuBLAS's trsmBatched on triangles with one diagonal entry of magnitude 2^e, e over the whole
// exponent range of the type (one matrix an exponent, one batched call a case), beside the CPU
// reference: the exponents where X is not finite or differs from the reference's, called directly
// (baselines' Cublas: 'raw') and through the route (force 'cublas', which sets aside the matrices
// whose diagonal it cannot take). Complex entries as (0, 2^e), (2^e, 2^e) and (2^e, 2^(e-30)).
//   node scripts/probe/trsm-vendor-diagonal.mjs [order=8]
import { open, strided } from '../../dist/src/index.js';
import { referenceContext } from '../../dist/src/api/context.js';
import { Cublas, batchPointers } from '../../dist/src/cuda/baselines/index.js';

const t = Number(process.argv[2] ?? 8), k = Math.floor(t / 3), nrhs = 3;
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const blas = new Cublas(dev);
const RANGE = { float32: [-149, 127], float64: [-1074, 1023], complex64: [-149, 127], complex128: [-1074, 1023] };
const ranges = (es) => {
  const out = []; let start;
  for (let i = 0; i < es.length; i++) {
    if (start === undefined) start = es[i];
    if (i + 1 === es.length || es[i + 1] !== es[i] + 1) { out.push(start === es[i] ? `${start}` : `${start}..${es[i]}`); start = undefined; }
  }
  return out.join(' ') || '-';
};
for (const dtype of ['float32', 'float64', 'complex64', 'complex128']) {
  const parts = dtype.startsWith('complex') ? 2 : 1, single = dtype === 'float32' || dtype === 'complex64';
  const exps = []; for (let e = RANGE[dtype][0]; e <= RANGE[dtype][1]; e++) exps.push(e);
  const count = exps.length;
  const kinds = parts === 1 ? [[1, 0]] : [[0, 1], [1, 1], [1, 2 ** -30]];
  for (const [re, im] of kinds) for (const side of ['left', 'right']) for (const uplo of ['lower', 'upper']) for (const transA of parts === 1 ? ['N', 'T'] : ['N', 'C']) {
    const Arr = single ? Float32Array : Float64Array;
    const a = new Arr(parts * t * t * count);
    const [rows, cols] = side === 'left' ? [t, nrhs] : [nrhs, t];
    const b = new Arr(parts * rows * cols * count);
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
    exps.forEach((e, q) => {
      for (let j = 0; j < t; j++) for (let i = 0; i < t; i++) {
        const f = parts * (q * t * t + i + j * t);
        const onRow = i === k || j === k;
        a[f] = i === j ? (i === k ? re * 2 ** e : 2 + rnd() / 4) : onRow ? 0 : rnd() / t;
        if (parts === 2) a[f + 1] = i === j ? (i === k ? im * 2 ** e : 0) : onRow ? 0 : rnd() / t;
      }
      for (let f = 0; f < parts * rows * cols; f++) b[parts * q * rows * cols + f] = rnd();
      // B's row / column k scaled by |d| so that x(k) is about 1.
      for (let v = 0; v < nrhs; v++) {
        const f = parts * (q * rows * cols + (side === 'left' ? k + v * rows : v + k * rows));
        for (let p = 0; p < parts; p++) b[f + p] = b[f + p] * 2 ** e;
      }
    });
    const cplx = parts === 2 ? { dtype } : {};
    const alpha = parts === 2 ? [1, 0] : 1;
    const call = (x) => ({ side, uplo, transA, diag: 'nonunit', alpha, a: strided(a, { rows: t, cols: t, count, ...cplx }), b: strided(x, { rows, cols, count, ...cplx }) });
    const want = b.slice(), got = b.slice();
    referenceContext.trsm(call(want));
    ctx.deviceBackend.force = { trsm: 'cublas' };
    ctx.trsm(call(got));
    ctx.deviceBackend.force = {};
    // The vendor alone, on pointer arrays of the same batch.
    const dA = dev.upload(a), dB = dev.upload(b);
    const pA = batchPointers(dev, dA, count, parts * t * t), pB = batchPointers(dev, dB, count, parts * rows * cols);
    if (parts === 2) blas.complexTrsmBatched(dtype, side, uplo, transA, 'nonunit', rows, cols, alpha, pA, t, pB, rows, count);
    else blas.trsmBatched(dtype, side, uplo, transA, 'nonunit', rows, cols, alpha, pA, t, pB, rows, count);
    const raw = dev.download(dB);
    for (const x of [pA, pB, dA, dB]) x.dispose();
    const eps = single ? 2 ** -23 : 2 ** -52;
    const differs = (x) => {
      const out = [];
      exps.forEach((e, q) => {
        for (let f = parts * q * rows * cols; f < parts * (q + 1) * rows * cols; f++) {
          if (!Number.isFinite(x[f]) || Math.abs(x[f] - want[f]) > 64 * t * eps * Math.max(Math.abs(want[f]), 1)) { out.push(e); return; }
        }
      });
      return out;
    };
    const refBad = exps.filter((e, q) => want.subarray(parts * q * rows * cols, parts * (q + 1) * rows * cols).some((v) => !Number.isFinite(v)));
    const bad = differs(got), rawBad = differs(raw);
    console.log(`${dtype} d=(${re},${im})*2^e ${side} ${uplo} ${transA}: raw cuBLAS differs at e ${ranges(rawBad)}; the route at e ${ranges(bad)}; reference not finite at e ${ranges(refBad)}`);
  }
}
