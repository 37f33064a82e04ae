// The vendor LU's info, pivots and stored diagonal on a float32 matrix whose pivot stores as zero
// (test/helpers/rounded-pivot.ts's kinds), beside the own route: what cusolverDnSgetrf stores there.
//   node scripts/probe/getrf-vendor-tie.mjs [n=256]
import { open, strided } from '../../dist/src/index.js';
import { REAL_KINDS, build } from '../../dist/test/helpers/rounded-pivot.js';

const n = Number(process.argv[2] ?? 256);
const ctx = await open({ backend: 'cuda' });
for (const kind of REAL_KINDS) for (const route of ['cusolver', undefined]) {
  const c = { dtype: 'float32', n, kind, count: 1, nrhs: 1 };
  const { a } = build(c);
  ctx.deviceBackend.force = route ? { getrf: route } : {};
  const out = ctx.getrf({ a: strided(a, { rows: n, cols: n, count: 1 }) });
  const k = 1 + (n >> 2);
  const diag = [], piv = [];
  for (let j = k - 1; j <= k + 3 && j < n; j++) { diag.push(a[j * (n + 1)]); piv.push(out.ipiv[j]); }
  console.log(kind.name, ctx.lastRoute?.route, 'info', out.info[0], `k=${k}`, 'ipiv[k-1..]', piv.join(' '), 'diag[k-1..]', diag.join(' '));
}
