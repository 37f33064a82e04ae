// The fast CPU backend against the reference through the public API, on random sizes, counts,
// layouts (ld, gaps, offsets), dtypes and enums, with failing and NaN matrices mixed into the
// batches: info and pivots must be equal, A and B bitwise or (where the fast backend documents
// only agreement within rounding) within 1000 n eps relative, NaN where the reference has NaN.
// Prints any mismatch and, by op / dtype / uplo / shape, the cases that agree only within rounding.
// Usage (after npx tsc -p .): SECONDS=60 SEED=1 OPS=potrf,posv,getrf,gesv,potrs,getrs,trsm node scripts/probe/cpu-differential.mjs
//   (also trmm, trtri, lauum, potri, syrk)
import { open, strided } from '../../dist/src/index.js';
const fast = open({ backend: 'cpu' }), ref = open({ backend: 'reference' });
let seed = Number(process.env.SEED ?? 1);
const rnd = () => {   // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const ri = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const pick = (xs) => xs[ri(0, xs.length - 1)];
const ops = (process.env.OPS ?? 'potrf,posv,getrf,gesv,potrs,getrs,trsm').split(',');
const nb = new Map();
let mism = 0, runs = 0, bitA = 0, bitB = 0;
const t0 = Date.now();
const deadline = Number(process.env.SECONDS ?? 60) * 1000;
while (Date.now() - t0 < deadline) {
  const op = pick(ops), dtype = pick(['float64', 'float32']);
  const n = pick([ri(1, 20), ri(1, 40), pick([47, 64, 100, 128])]);
  const count = pick([1, ri(1, 9), ri(10, 300), ri(1000, 3000)]);
  if (n * n * count > 3e6) continue;
  const nrhs = pick([1, ri(1, 5), ri(6, 20)]);
  const ld = n + pick([0, 0, 1, 3]), ldb = n + pick([0, 2]);
  const gap = pick([0, 0, 5]), off = pick([0, 3]);
  const T = dtype === 'float64' ? Float64Array : Float32Array;
  const strideA = ld * n + gap, strideB = Math.max(ldb * nrhs, nrhs * n) + gap;
  const A = new T(off + strideA * count + 2), B = new T(off + strideB * count + 2);
  for (let i = 0; i < A.length; i++) A[i] = rnd() * 2 - 1;
  for (let i = 0; i < B.length; i++) B[i] = rnd() * 2 - 1;
  const spd = op.startsWith('po') || op === 'posv' || op === 'lauum';
  const tri = ['trsm', 'trmm', 'trtri'].includes(op);
  for (let m = 0; m < count; m++) {
    const base = off + m * strideA;
    const kind = pick(['good', 'good', 'good', 'bad', 'nan']);
    if (spd) { // diagonally dominant symmetric
      for (let j = 0; j < n; j++) for (let i = j; i < n; i++) { const v = A[base + i + j * ld]; A[base + j + i * ld] = v; }
      for (let j = 0; j < n; j++) A[base + j + j * ld] = n + 1;
      if (kind === 'bad') { const k = ri(0, n - 1); A[base + k + k * ld] = -1; }
    } else if (kind === 'bad') { const k = ri(0, n - 1); for (let i = 0; i < n; i++) A[base + i + k * ld] = 0; }
    // Triangles well conditioned (off-diagonal entries / n): random triangles' condition grows like 2^n.
    if (tri) { for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) A[base + i + j * ld] /= n; for (let j = 0; j < n; j++) A[base + j + j * ld] = 2 + rnd(); if (kind === 'bad' && op === 'trtri') A[base + ri(0, n - 1) * (ld + 1)] = 0; }
    if (kind === 'nan') A[base + ri(0, n - 1) + ri(0, n - 1) * ld] = NaN;
  }
  const side = pick(['left', 'right']), alpha = pick([1, -0.5]);
  const uplo = pick(['lower', 'upper']), diag = pick(['unit', 'nonunit']), trans = pick(['N', 'T']);
  const run = (ctx) => {
    const a = A.slice(), b = B.slice();
    const ipiv = new Int32Array(n * count).fill(-9);
    const sa = strided(a, { rows: n, cols: n, count, ld, stride: strideA, offset: off });
    const sb = strided(b, { rows: n, cols: nrhs, count, ld: ldb, stride: strideB, offset: off });
    const sbr = strided(b, { rows: nrhs, cols: n, count, ld: nrhs, stride: strideB, offset: off });
    let r;
    try {
      switch (op) {
        case 'potrf': r = ctx.potrf({ uplo, a: sa }); break;
        case 'posv': r = ctx.posv({ uplo, a: sa, b: sb }); break;
        case 'getrf': r = ctx.getrf({ a: sa, ipiv }); break;
        case 'gesv': r = ctx.gesv({ a: sa, b: sb, ipiv }); break;
        case 'potrs': ctx.potrf({ uplo, a: sa }); r = ctx.potrs({ uplo, a: sa, b: sb }); break;
        case 'getrs': { ctx.getrf({ a: sa, ipiv }); r = ctx.getrs({ trans, a: sa, ipiv, b: sb }); break; }
        case 'trsm': r = ctx.trsm({ side, uplo, transA: trans, diag, alpha, a: sa, b: side === 'left' ? sb : sbr }); break;
        case 'trmm': r = ctx.trmm({ side, uplo, transA: trans, diag, alpha, a: sa, b: side === 'left' ? sb : sbr }); break;
        case 'trtri': r = ctx.trtri({ uplo, diag, a: sa }); break;
        case 'lauum': r = ctx.lauum({ uplo, a: sa }); break;
        case 'potri': ctx.potrf({ uplo, a: sa }); r = ctx.potri({ uplo, a: sa }); break;
        case 'syrk': r = ctx.syrk({ uplo, trans, alpha, beta: 0.5, a: sb, c: sa }); break;
      }
    } catch (e) { return { err: String(e.message ?? e) }; }
    return { a, b, ipiv, info: r?.info ? Array.from(r.info) : null };
  };
  const x = run(fast), y = run(ref);
  runs++;
  const same = (p, q) => { if (p.length !== q.length) return false; for (let i = 0; i < p.length; i++) { if (!(Object.is(p[i], q[i]) || (Number.isNaN(p[i]) && Number.isNaN(q[i])))) return false; } return true; };
  let bad = '';
  if (x.err || y.err) { if (x.err !== y.err) bad = `errors differ: ${x.err} | ${y.err}`; }
  else {
    const close = (p, q) => { const eps = dtype === 'float64' ? 2.2e-16 : 1.2e-7; for (let i = 0; i < p.length; i++) { const u = p[i], v = q[i]; if (Object.is(u, v) || (Number.isNaN(u) && Number.isNaN(v))) continue; if (Number.isNaN(u) !== Number.isNaN(v)) return false; if (!(Math.abs(u - v) <= 1000 * n * eps * Math.max(1, Math.abs(v)))) return false; } return true; };
    if (!same(x.a, y.a)) { if (close(x.a, y.a)) { bitA++; { const kk = `${op} A ${dtype} ${uplo} n${n} count${count} ld${ld}`; nb.set(kk, (nb.get(kk) ?? 0) + 1); } } else bad += ' A'; }
    if (!same(x.b, y.b)) { if (close(x.b, y.b)) { bitB++; nb.set(`${op} B n${n <= 16 ? '<=16' : n <= 32 ? '<=32' : '>32'}`, (nb.get(`${op} B n${n <= 16 ? '<=16' : n <= 32 ? '<=32' : '>32'}`) ?? 0) + 1); } else bad += ' B'; }
    if (!same(x.ipiv, y.ipiv)) bad += ' ipiv';
    if (JSON.stringify(x.info) !== JSON.stringify(y.info)) bad += ' info';
  }
  if (bad) {
    mism++;
    let md = 0;
    if (x.a && y.a) for (let i = 0; i < x.a.length; i++) if (Number.isFinite(x.a[i]) && Number.isFinite(y.a[i])) md = Math.max(md, Math.abs(x.a[i] - y.a[i]));
    let mdb = 0;
    if (x.b && y.b) for (let i = 0; i < x.b.length; i++) if (Number.isFinite(x.b[i]) && Number.isFinite(y.b[i])) mdb = Math.max(mdb, Math.abs(x.b[i] - y.b[i]));
    if (mism <= 15) console.log(`MISMATCH${bad}: ${op} ${dtype} n=${n} count=${count} nrhs=${nrhs} ld=${ld} ldb=${ldb} gap=${gap} off=${off} uplo=${uplo} maxdiff A ${md.toExponential(2)} B ${mdb.toExponential(2)}`);
  }
}
console.log(`runs ${runs}, mismatches ${mism}, within rounding but not bitwise: A ${bitA} B ${bitB}`);
console.log([...nb.entries()].sort().map(([k, v]) => `${k}: ${v}`).join('\n'));
fast.dispose(); ref.dispose();
process.exit(0);
