// The syev probes' common opening: a CUDA context, cuSOLVER beside it, a seeded generator, the
// dtypes (argv[2]: float64 | float32 | both) and the n:count cases (argv[3], else `defaultCases`),
// and the median of 5 timed runs after 2 warm-ups (`f` returns its own milliseconds).
import { open } from '../../dist/src/index.js';
import { Random } from '../../dist/src/bench/data.js';
import { Cusolver } from '../../dist/src/cuda/baselines/index.js';

export async function syevProbe(defaultCases) {
  const ctx = await open({ backend: 'cuda' });
  const dev = ctx.deviceBackend.device;
  const solver = new Cusolver(dev);
  const rng = new Random(17);
  const dtypes = (process.argv[2] ?? 'both') === 'both' ? ['float64', 'float32'] : [process.argv[2]];
  const cases = (process.argv[3] ?? defaultCases).split(',').map((s) => s.split(':').map(Number));
  const median = (f) => {
    const ms = [];
    for (let r = 0; r < 7; r++) { const t = f(); if (r >= 2) ms.push(t); }
    ms.sort((x, y) => x - y);
    return ms[2];
  };
  return { ctx, dev, solver, rng, dtypes, cases, median };
}
