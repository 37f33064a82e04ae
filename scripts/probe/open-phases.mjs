/**
 * Where a GPU process's first second goes, phase by phase, in the order `open()` and a first
 * compile take them (GPU machine; run it as the first process on a fresh machine to see the cold
 * disk): the driver's load, cuInit, the device's attributes, NVRTC's load on this thread, the
 * context, the compile workers' start, and one register-LU kernel compiled optimised and quick on
 * them. The kernel carries a fresh tag, so NVRTC's own cache never answers.
 *
 *   node scripts/probe/open-phases.mjs [n=56]
 */
const t0 = performance.now();
const booted = process.uptime() * 1000; // the process's start to this line: node and this module
const marks = [];
const mark = (what) => marks.push([what, performance.now()]);
const { loadCudaDriver } = await import('../../dist/src/cuda/runtime/ffi-cuda.js');
const { readDeviceInfo } = await import('../../dist/src/cuda/runtime/device-info.js');
const { openNvrtc, compileOptions, targetOption } = await import('../../dist/src/cuda/runtime/compiler.js');
const { openDevice } = await import('../../dist/src/cuda/runtime/device.js');
const { CompilePool } = await import('../../dist/src/cuda/runtime/compile-pool.js');
const { QUICK_BUILD_OPTION } = await import('../../dist/src/cuda/runtime/tiered.js');
const { getrfRegisterSource } = await import('../../dist/src/cuda/kernels/getrf/index.js');
mark('modules imported');
const api = loadCudaDriver();
mark('libcuda loaded');
if (api.cuInit(0) !== 0) throw new Error('cuInit failed');
mark('cuInit');
const info = readDeviceInfo(api, 0);
mark(`device attributes (${info.name})`);
const pool = new CompilePool();
pool.prestart();
mark(`${pool.limit} compile workers asked to start`);
const nvrtc = openNvrtc();
mark(`NVRTC ${nvrtc.version} loaded on this thread`);
const device = openDevice(0);
mark('context open');
const n = Number(process.argv[2] ?? 56);
const tag = `${process.pid}_${Date.now()}`;
const src = getrfRegisterSource({ dtype: 'float64', rows: n, cols: n, kind: 'strided', warps: 4, nb: 8, minBlocks: 4 });
const tagged = src.source.replaceAll(src.entry, `${src.entry}_${tag}`);
const options = compileOptions(targetOption(info.arch, nvrtc.supportedArchs));
const request = (extra) => ({ name: src.name, source: tagged, options: [...options, ...extra] });
let out = pool.compileSync([request([]), request([QUICK_BUILD_OPTION])]);
mark(`getrf_reg ${n} optimised and quick, in parallel (${out.map((o) => (o.error ? 'error' : `${o.ms.toFixed(0)} ms`)).join(', ')})`);
out = pool.compileSync([{ ...request([]), source: tagged.replaceAll(tag, `${tag}b`) }]);
mark(`again optimised alone on a warm worker (${out[0].error ?? `${out[0].ms.toFixed(0)} ms`})`);
console.log(`node started ${booted.toFixed(0)} ms before the first line below`);
let prev = t0;
for (const [what, t] of marks) {
  console.log(`${(t - t0).toFixed(0).padStart(6)} ms  (+${(t - prev).toFixed(0).padStart(5)})  ${what}`);
  prev = t;
}
await pool.close();
