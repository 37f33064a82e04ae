// gesvd with U and VT (m = n), the bidiagonalization design (kernels/bidiag/: dgebd2 in one block per
// matrix, the Golub-Kahan tridiagonal's upper half by the tridiag family's bisection and inverse
// iteration, U_B and V_B, ormqr, store) against the Jacobi block design forced, our own syev with vectors
// (the inverse-iteration design, as routed) on a symmetric matrix of the same n and count,
// and cusolverDn?gesvdaStridedBatched where bound (cusolverDn?gesvdjBatched takes n <= 32 only: skipped);
// values only beside; per dtype, ms by CUDA events (median of 5 after 2 warm-ups; A reset from a
// pristine copy before each timed call, outside the timing). Then the design's accuracy on the first
// matrix: ||A - U S VT|| / (n eps ||A||), ||U^T U - I|| / (n eps), ||VT VT^T - I|| / (n eps). The
// table's gesvdFrom / gesvdTo (tuning/bidiag-default.ts) come from these rows.
// With --reduction[=16,32] the reduction's two forms instead: the design with U and VT and values only,
// dgebd2 in one kernel ('unblocked') against the blocked reduction ('panels', of each nb listed; the
// table's panelColumns by default), each with its accuracy on the first matrix; the table's
// panelsFrom comes from these rows.
//   node scripts/probe/gesvd-bidiag.mjs [float64|float32|both] [64:2000,128:500,...] [--reduction[=16,32]]
// (MYRIAD_QUICK_FIRST=0 unless set: every kernel its optimised build before it runs; the timings are of those.)
import { strided } from '../../dist/src/index.js';
import { syevProbe } from './syev-setup.mjs';
import { randomSymmetric } from '../../dist/src/bench/data.js';
import { gesvdBidiagCuda } from '../../dist/src/cuda/kernels/bidiag/index.js';
import { gesvdCuda } from '../../dist/src/cuda/kernels/jacobi/index.js';
import { syevTridiagCuda } from '../../dist/src/cuda/kernels/tridiag/index.js';

// The launchers are called directly: with quick builds first a kernel missing from the disk cache would
// stay on its quick build for the whole timing.
process.env.MYRIAD_QUICK_FIRST ??= '0';
const flag = process.argv.findIndex((x) => x.startsWith('--reduction'));
const reductionWidths = flag < 0 ? undefined : (process.argv[flag].split('=')[1]?.split(',').map(Number) ?? [undefined]);
if (flag >= 0) process.argv.splice(flag, 1);
const { ctx, dev, solver, rng, dtypes, cases, median } = await syevProbe(flag < 0 ? '64:2000,128:500,256:100,512:20,512:264' : '128:500,192:200,256:100,384:40,512:20,512:264');
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
  const accuracy = (force) => accuracyOf(n, dtype, host, a0, a, size, u, s, vt, info, req, force);
  if (reductionWidths !== undefined) {
    const forms = [['unblocked', { reduction: 'unblocked' }], ...reductionWidths.map((nb) => [`panels${nb === undefined ? '' : ` nb=${nb}`}`, { reduction: 'panels', ...(nb === undefined ? {} : { nb }) }])];
    const row = forms.map(([name, force]) =>
      `${name} ${t(() => gesvdBidiagCuda(dev, req(true), { force }))} (values ${t(() => gesvdBidiagCuda(dev, req(false), { force }))})${accuracy(force)}`);
    console.log(`${dtype} n=${n} x ${count} (ms, U and VT; values only): ${row.join(' | ')}`);
    for (const x of [a0, a, s, u, vt, info]) x.dispose();
    continue;
  }
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
  console.log(`${dtype} n=${n} x ${count} (ms): ${row.join(', ')}${accuracy()}`);
  for (const x of [a0, a, s, u, vt, info]) x.dispose();
}
solver.dispose();
ctx.dispose();

/** Accuracy of the bidiag design (`force` given to it) on the first matrix (float64 arithmetic on the host). */
function accuracyOf(n, dtype, host, a0, a, size, u, s, vt, info, req, force) {
  let acc = '';
  try {
    dev.copy(a0, 0, a, 0, size);
    gesvdBidiagCuda(dev, req(true), { force });
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
  return acc;
}
