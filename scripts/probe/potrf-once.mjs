// One large potrf (or getrf) call and nothing else: for Nsight Compute (`ncu --kernel-name ...`).
// Usage: node scripts/probe/potrf-once.mjs [op=potrf] [n=4096] [dtype=float64]; FORCE='{...}' as large-breakdown.mjs.
import { open, strided } from '../../dist/src/index.js';
import { randomSpd, randomMatrices, Random } from '../../dist/src/bench/data.js';
import { potrfCuda } from '../../dist/src/cuda/kernels/potrf/index.js';
import { getrfCuda } from '../../dist/src/cuda/kernels/getrf/index.js';

const op = process.argv[2] ?? 'potrf';
const n = Number(process.argv[3] ?? 4096);
const dtype = process.argv[4] ?? 'float64';
const opts = process.env.FORCE ? { force: JSON.parse(process.env.FORCE) } : {};
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const host = op === 'potrf' ? randomSpd(dtype, n, 1, new Random(5)) : randomMatrices(dtype, n, n, 1, new Random(5));
const a = ctx.upload(host), info = ctx.alloc('int32', 1), piv = ctx.alloc('int32', n);
const A = strided(a, { rows: n, cols: n, count: 1 });
if (op === 'potrf') potrfCuda(dev, { a: A, uplo: 'lower', info }, opts);
else getrfCuda(dev, { a: A, ipiv: piv, pivotStride: n, info }, opts);
await ctx.synchronize();
console.log(`${op} ${dtype} ${n}: info ${dev.download(info)[0]}`);
ctx.dispose();
