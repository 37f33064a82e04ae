// The CPU reference's one-sided Jacobi on a random n x n float64 matrix (fixed seed): info and
// ||V^T V - I||_F / (n eps), the ratio the tests hold below 30. Usage: node scripts/probe/jacobi-ortho.mjs 256 512
import { gesvdMatrix } from '../../dist/src/cpu/lapack/index.js';
for (const n of process.argv.slice(2).map(Number)) {
  let seed = 7;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 - 0.5; };
  const g = new Float64Array(n * n).map(rnd), v = new Float64Array(n * n), s = new Float64Array(n);
  const t0 = Date.now();
  const info = gesvdMatrix(g, v, s, n, n);
  let f = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    let d = 0;
    for (let k = 0; k < n; k++) d += v[k + i * n] * v[k + j * n];
    d -= i === j ? 1 : 0;
    f += d * d;
  }
  console.log(`n = ${n}: info ${info}, ||V^T V - I|| / (n eps) = ${(Math.sqrt(f) / (n * 2 ** -52)).toFixed(2)}, ${Date.now() - t0} ms`);
}
