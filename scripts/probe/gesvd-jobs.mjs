// gesvd n x n on device-resident random general matrices, values only and with thin U and VT, the
// planned route: CUDA events, one warm-up call, the median of 5 (A restored from a pristine copy
// before each call, outside the timing). Prints a markdown table. Compare builds by running each.
// SIZES=n:count,... (default 16:20000,32:10000,48:2000) DTYPES=float64,float32
import { open, strided } from '../../dist/src/index.js';
import { Random, randomGeneral } from '../../dist/src/bench/data.js';

const ctx = await open({ backend: 'cuda' });
const rng = new Random(29);
const sizes = (process.env.SIZES ?? '16:20000,32:10000,48:2000').split(',').map((s) => s.split(':').map(Number));
const dtypes = (process.env.DTYPES ?? 'float64,float32').split(',');
console.log(`card: ${ctx.deviceBackend.device.info.name}\n\n| dtype | n | count | values only ms | U and VT ms | route |\n| --- | ---: | ---: | ---: | ---: | --- |`);
for (const dtype of dtypes) {
  for (const [n, count] of sizes) {
    const host = randomGeneral(dtype, n, count, rng);
    const pristine = ctx.upload(host), a = ctx.upload(host);
    const s = ctx.upload(new (dtype === 'float64' ? Float64Array : Float32Array)(n * count));
    const u = ctx.upload(new (dtype === 'float64' ? Float64Array : Float32Array)(n * n * count));
    const vt = ctx.upload(new (dtype === 'float64' ? Float64Array : Float32Array)(n * n * count));
    const info = ctx.upload(new Int32Array(count));
    const req = (vectors) => ({
      a: strided(a, { rows: n, cols: n, count }), s: strided(s, { rows: n, cols: 1, count }), info, ...(vectors ? {} : { jobu: 'none', jobvt: 'none' }),
      ...(vectors ? { u: strided(u, { rows: n, cols: n, count }), vt: strided(vt, { rows: n, cols: n, count }) } : {}),
    });
    const time = (vectors) => {
      const ms = [];
      for (let r = 0; r < 6; r++) {
        ctx.copy(pristine, a);
        ms.push(ctx.time(() => ctx.gesvd(req(vectors))));
      }
      return ms.slice(1).sort((x, y) => x - y)[2];
    };
    const values = time(false), vectors = time(true);
    console.log(`| ${dtype} | ${n} | ${count} | ${values.toFixed(3)} | ${vectors.toFixed(3)} | ${ctx.lastRoute?.route} |`);
    for (const x of [pristine, a, s, u, vt, info]) x.dispose?.();
  }
}
