// The prepared and captured calls example of README.md (CUDA), verbatim (test/core/readme.test.ts checks that it stays so).
import { open, strided, type DeviceStorage } from 'myriad';
const n = 8, count = 200, len = n * n * count;
const ctx = open({ backend: 'cuda' });
const twoI = new Float64Array(len);
for (let i = 0; i < count; i++) for (let j = 0; j < n; j++) twoI[i * n * n + j * (n + 1)] = 2;
const h = ctx.upload(twoI), s = ctx.alloc('float64', len);
const batch = (d: DeviceStorage) => strided(d, { rows: n, count });
// Prepared: validated and planned once; each call only checks that new storages fit.
const gram = ctx.prepare.gemm({ transB: 'T', a: batch(h), b: batch(h), c: batch(s) });
gram();                                              // S := H H^T = 4 I on the prepared storages
const factor = ctx.prepare.potrf({ a: batch(s) });
// Captured: runs once now, then replays as one CUDA graph (on the CPU: calls the closure again).
const step = ctx.capture(() => { gram(); factor(); });
for (let t = 0; t < 3; t++) step.replay();
await ctx.synchronize();
console.log(ctx.download(s)[0]);                     // 2 (the factor of 4 I)
step.dispose();
