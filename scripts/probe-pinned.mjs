// Probe (GPU machine): what registering host memory costs against what it saves.
// For each size: a pageable upload and download, cuMemHostRegister of a fresh buffer (first
// touch included, as a new Float64Array has it), the pinned upload and download, and unregister.
// Usage: node scripts/probe-pinned.mjs   (after npm run build; prints one line per size)
import { openDevice } from '../dist/src/cuda/runtime/index.js';
import { cudaRuntime } from '../dist/src/cuda/runtime/runtime.js';

const dev = openDevice(0);
const api = cudaRuntime().api;
const ms = (f) => { const t = performance.now(); f(); return performance.now() - t; };
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log('MiB | pageable up ms | pageable down ms | register ms | pinned up ms | pinned down ms | unregister ms');
for (const mib of [1, 4, 16, 64, 256, 1024]) {
  const n = (mib * 2 ** 20) / 8;
  const d = dev.alloc('float64', n);
  const rows = [];
  for (let r = 0; r < 3; r++) {
    const h = new Float64Array(n).fill(r + 1);
    const pu = ms(() => { dev.upload(h, d); dev.synchronize(); });
    const pd = ms(() => dev.download(d, h));
    const reg = ms(() => { if (api.cuMemHostRegister_v2(new Uint8Array(h.buffer), h.byteLength, 1) !== 0) throw new Error('register'); });
    const up = ms(() => { dev.uploadRange(h, 0, n, d, 0); dev.awaitUploads(); dev.synchronize(); });
    const down = ms(() => { dev.downloadRange(d, 0, h, 0, n); dev.synchronize(); });
    const { addressOf } = await import('../dist/src/cuda/runtime/pinned.js');
    const unreg = ms(() => api.cuMemHostUnregister(addressOf(h)));
    rows.push([pu, pd, reg, up, down, unreg]);
  }
  const cols = rows[0].map((_, i) => med(rows.map((x) => x[i])).toFixed(2));
  console.log(`${mib} | ${cols.join(' | ')}`);
  d.dispose();
}
