// The multi-GPU example of README.md, verbatim (test/core/readme.test.ts checks that it stays so).
import { open, strided, type DeviceStorage, type MultiDeviceContext } from 'myriad';
const n = 16, count = 10_000;
const hostA = new Float64Array(n * n * count);
for (let i = 0; i < count; i++) for (let j = 0; j < n; j++) hostA[i * n * n + j * (n + 1)] = 2; // SPD: here 2 I
const ctx = open({ devices: 'all' }) as MultiDeviceContext;   // or [0, 1]; weights: [...]
ctx.potrf({ a: strided(hostA, { rows: n, count }) });        // host data: split, run on every GPU, results in order
const a = ctx.scatter(hostA, { rows: n, count });             // or keep the batch spread over the GPUs
const { info } = ctx.potrf({ a: strided(a, { rows: n, count }) }); // enqueued on every GPU
await ctx.synchronize();
console.log(ctx.gather(a), ctx.gather(info as DeviceStorage));  // factors and info, original order
