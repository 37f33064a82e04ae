// gesvd with U and VT (m = n), the bidiagonalization design (kernels/bidiag/: dgebd2 in one block per
// matrix, the Golub-Kahan tridiagonal's upper half by the tridiag family's bisection and inverse
// iteration, U_B and V_B, ormqr, store) against the Jacobi block design forced, our own syev with vectors
// (the inverse-iteration design, as routed) on a symmetric matrix of the same n and count,
// and cusolverDn?gesvdaStridedBatched where bound (cusolverDn?gesvdjBatched takes n <= 32 only: skipped);
// values only beside; per dtype, ms by CUDA events (median of 5 after 2 warm-ups; A reset from a
// pristine copy before each timed call, outside the timing). Then the design's accuracy on the first
// matrix: ||A - U S VT|| / (n eps ||A||), ||U^T U - I|| / (n eps), ||VT VT^T - I|| / (n eps). The
// table's gesvdFrom / gesvdTo (tuning/bidiag-default.ts) come from these rows.
//   node scripts/probe/gesvd-bidiag.mjs [float64|float32|both] [64:2000,128:500,...]
import { strided } from '../../dist/src/index.js';
import { syevProbe } from './syev-setup.mjs';
import { randomSymmetric } from '../../dist/src/bench/data.js';
import { gesvdBidiagCuda } from '../../dist/src/cuda/kernels/bidiag/index.js';
import { gesvdCuda } from '../../dist/src/cuda/kernels/jacobi/index.js';
import { syevTridiagCuda } from '../../dist/src/cuda/kernels/tridiag/index.js';

const { ctx, dev, solver, rng, dtypes, cases, median } = await syevProbe('64:2000,128:500,256:100,512:20,512:264');
for (const dtype of dtypes) for (const [n, count] of cases) {
  const size = n * n * count;
  const host = randomSymmetric(dtype, n, count, rng);   // a general matrix for gesvd too (its symmetry is irrelevant there)
  const a0 = ctx.upload(host), a = ctx.alloc(dtype, size), s = ctx.alloc(dtype, n * count), u = ctx.alloc(dtype, size), vt = ctx.alloc(dtype, size), info = ctx.alloc('int32', count);
  const timed = (f) => median(() => { dev.copy(a0, 0, a, 0, size); return ctx.time(f); });
  const req = (vectors) => ({
    a: strided(a, { rows: n, cols: n, count }), s: strided(s, { rows: n, cols: 1, count }),
    u: vectors ? strided(u, { rows: n, cols: n, count }) : undefined, vt: vectors ? strided(vt, { rows: n, cols: n, count }) : undefined, info,
  });
  const t = (f) => { try { return timed(f).toFixed(3); } catch (e) { return `(${e.message.slice(0, 60)})`; } };
  const row = [
    `bidiag ${t(() => gesvdBidiagCuda(dev, req(true)))}`,
    `values ${t(() => gesvdBidiagCuda(dev, req(false)))}`,
    `jacobi ${n ** 3 * count <= 3e9 ? t(() => gesvdCuda(dev, req(true))) : '(skipped)'}`,
    `syev ${t(() => syevTridiagCuda(dev, { jobz: 'vectors', uplo: 'lower', a: strided(a, { rows: n, cols: n, count }), w: strided(s, { rows: n, cols: 1, count }), info }))}`,
  ];
  try {
    const b = solver.gesvdaStridedBatched(dtype, n, n, a, s, u, vt, info, count);
    try { row.push(`vendor gesvda ${timed(() => b.run()).toFixed(3)}`); } finally { b.dispose(); }
  } catch (e) { row.push(`vendor gesvda (${e.message.slice(0, 60)})`); }
  // Accuracy of the bidiag design on the first matrix (float64 arithmetic on the host).
  let acc = '';
  try {
    dev.copy(a0, 0, a, 0, size);
    gesvdBidiagCuda(dev, req(true));
    const U = dev.download(u), S = dev.download(s), VT = dev.download(vt), I = dev.download(info);
    const eps = dtype === 'float64' ? 2 ** -52 : 2 ** -23;
    let anorm = 0, res = 0, ou = 0, ov = 0;
    for (let e = 0; e < n * n; e++) anorm += host[e] ** 2;
    anorm = Math.sqrt(anorm);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
      let r = host[i + j * n], gu = 0, gv = 0;
      for (let l = 0; l < n; l++) { r -= U[i + l * n] * S[l] * VT[l + j * n]; gu += U[l + i * n] * U[l + j * n]; gv += VT[i + l * n] * VT[j + l * n]; }
      res += r * r; ou += (gu - (i === j ? 1 : 0)) ** 2; ov += (gv - (i === j ? 1 : 0)) ** 2;
    }
    acc = ` | residual ${(Math.sqrt(res) / (n * eps * anorm)).toFixed(3)}, U ${(Math.sqrt(ou) / (n * eps)).toFixed(3)}, VT ${(Math.sqrt(ov) / (n * eps)).toFixed(3)}, info[0] ${I[0]}`;
  } catch (e) { acc = ` | check: (${e.message.slice(0, 60)})`; }
  console.log(`${dtype} n=${n} x ${count} (ms): ${row.join(', ')}${acc}`);
  for (const x of [a0, a, s, u, vt, info]) x.dispose();
}
solver.dispose();
ctx.dispose();
