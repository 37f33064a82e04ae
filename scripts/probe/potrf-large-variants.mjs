// Variants of the large single-matrix Cholesky built from the families' public faces, timed by events.
import { open, strided } from '../../dist/src/index.js';
import { CudaKernel } from '../../dist/src/cuda/runtime/index.js';
import { randomSpd, Random } from '../../dist/src/bench/data.js';
import { potrfCuda, potrfRecursionSteps } from '../../dist/src/cuda/kernels/potrf/index.js';
import { trsmCuda } from '../../dist/src/cuda/kernels/trsm/index.js';
import { syrkCuda } from '../../dist/src/cuda/kernels/syrk/index.js';
import { block } from '../../dist/src/cuda/kernels/common/sub-blocks.js';
let launches = 0;
const orig = CudaKernel.prototype.launch;
CudaKernel.prototype.launch = function (c, a) { launches++; return orig.call(this, c, a); };
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const rng = new Random(7);
function recursive(A, info, leaf, leafVariant, trsmLeaf) {
  for (const s of potrfRecursionSteps(A.rows, leaf)) {
    if (s.kind === 'leaf') { potrfCuda(dev, { a: block(A, s.off, s.off, s.size, s.size), uplo: 'lower', info }, { force: { recursive: false, ...(leafVariant ? { variant: leafVariant } : {}) } }); continue; }
    const a21 = block(A, s.off + s.top, s.off, s.rest, s.top);
    trsmCuda(dev, { side: 'right', uplo: 'lower', transA: 'T', diag: 'nonunit', alpha: 1, a: block(A, s.off, s.off, s.top, s.top), b: a21 }, { force: { leafMax: trsmLeaf } });
    syrkCuda(dev, { uplo: 'lower', trans: 'N', alpha: -1, a: a21, beta: 1, c: block(A, s.off + s.top, s.off + s.top, s.rest, s.rest) });
  }
}
function blocked(A, info, nb, leafVariant, trsmLeaf) {
  const n = A.rows;
  for (let k = 0; k < n; k += nb) {
    const b = Math.min(nb, n - k), rest = n - k - b;
    potrfCuda(dev, { a: block(A, k, k, b, b), uplo: 'lower', info }, { force: { recursive: false, ...(leafVariant ? { variant: leafVariant } : {}) } });
    if (rest === 0) break;
    const a21 = block(A, k + b, k, rest, b);
    trsmCuda(dev, { side: 'right', uplo: 'lower', transA: 'T', diag: 'nonunit', alpha: 1, a: block(A, k, k, b, b), b: a21 }, { force: { leafMax: trsmLeaf } });
    syrkCuda(dev, { uplo: 'lower', trans: 'N', alpha: -1, a: a21, beta: 1, c: block(A, k + b, k + b, rest, rest) });
  }
}
const configs = {
  default: (A, info) => ctx.potrf({ a: A, uplo: 'lower', info }),
  'rec128-panel-t32': (A, i) => recursive(A, i, 128, undefined, 32),
  'rec128-reg-t32': (A, i) => recursive(A, i, 128, 'register', 32),
  'rec128-reg-t64': (A, i) => recursive(A, i, 128, 'register', 64),
  'rec128-reg-t128': (A, i) => recursive(A, i, 128, 'register', 128),
  'rec64-reg-t64': (A, i) => recursive(A, i, 64, 'register', 64),
  'blk128-reg-t64': (A, i) => blocked(A, i, 128, 'register', 64),
  'blk128-reg-t128': (A, i) => blocked(A, i, 128, 'register', 128),
  'blk256-panel-t64': (A, i) => blocked(A, i, 256, undefined, 64),
};
for (const n of (process.argv[2] ?? '1024,2048,4096').split(',').map(Number)) {
  const host = randomSpd('float64', n, 1, rng);
  const a0 = ctx.upload(host), a = ctx.alloc('float64', n * n), info = ctx.alloc('int32', 1);
  const A = strided(a, { rows: n, cols: n, count: 1 });
  // reference result from default
  ctx.copy(a0, a); configs.default(A, info); const ref = ctx.download(a);
  for (const [name, f] of Object.entries(configs)) {
    const run = () => { ctx.copy(a0, a); f(A, info); };
    try {
      run(); run();
      launches = 0; run(); const l = launches;
      const ms = []; for (let r = 0; r < 5; r++) ms.push(ctx.time(run));
      ms.sort((x, y) => x - y);
      const out = ctx.download(a); let err = 0;
      for (let j = 0; j < n; j++) for (let i = j; i < n; i++) err = Math.max(err, Math.abs(out[i + j * n] - ref[i + j * n]));
      console.log(`n=${n} ${name.padEnd(18)} ${ms[2].toFixed(2).padStart(8)} ms  ${String(l).padStart(5)} launches  maxdiff ${err.toExponential(1)}`);
    } catch (e) { console.log(`n=${n} ${name} failed: ${e.message}`); }
  }
}
ctx.dispose();
