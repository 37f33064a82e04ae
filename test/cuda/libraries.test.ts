/** Library search order and the probe, on a machine with or without a GPU. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { candidates, LIBCUBLAS, LIBCUDA, LIBCUSOLVER, LIBNVRTC, loadLibrary, toolkitDirs } from '../../src/cuda/runtime/libraries.js';
import { compileOptions, targetOption } from '../../src/cuda/runtime/compiler.js';
import { formatCudaVersion } from '../../src/cuda/runtime/runtime.js';
import { MyriadError } from '../../src/core/errors.js';

const T = process.arch === 'arm64' ? 'sbsa-linux' : 'x86_64-linux';

test('an explicit env var is the only candidate', () => {
  for (const spec of [LIBCUDA, LIBNVRTC, LIBCUBLAS, LIBCUSOLVER]) {
    assert.deepEqual(candidates(spec, { [spec.envVar]: '/opt/x/lib.so', CUDA_PATH: '/c' }, () => true), ['/opt/x/lib.so']);
  }
});

test('toolkit order: CUDA_PATH, CUDA_HOME, /usr/local/cuda; lib64 before targets/<arch>/lib; then sonames', () => {
  const env = { CUDA_PATH: '/cp', CUDA_HOME: '/ch' };
  assert.deepEqual(toolkitDirs(env), ['/cp/lib64', `/cp/targets/${T}/lib`, '/ch/lib64', `/ch/targets/${T}/lib`, '/usr/local/cuda/lib64', `/usr/local/cuda/targets/${T}/lib`]);
  const present = new Set([`/ch/targets/${T}/lib/libnvrtc.so.12`, '/usr/local/cuda/lib64/libnvrtc.so.13', '/cp/lib64/libnvrtc.so']);
  assert.deepEqual(candidates(LIBNVRTC, env, (p) => present.has(p)), [
    '/cp/lib64/libnvrtc.so',
    `/ch/targets/${T}/lib/libnvrtc.so.12`,
    '/usr/local/cuda/lib64/libnvrtc.so.13',
    'libnvrtc.so.13', 'libnvrtc.so.12', 'libnvrtc.so.11.2', 'libnvrtc.so',
  ]);
});

test('the driver is never taken from the toolkit (it only has a stub there)', () => {
  const all = candidates(LIBCUDA, { CUDA_PATH: '/cp' }, () => true);
  assert.ok(all.every((p) => !p.startsWith('/cp')));
  assert.deepEqual(all.slice(-2), ['libcuda.so.1', 'libcuda.so']);
});

test('a bad explicit path fails with a reason naming the variable', () => {
  assert.throws(() => loadLibrary(LIBCUBLAS, { MYRIAD_LIBCUBLAS: '/nonexistent/libcublas.so.13' }), (e: MyriadError) => {
    assert.equal(e.code, 'BACKEND_UNAVAILABLE');
    assert.match(e.message, /MYRIAD_LIBCUBLAS=\/nonexistent\/libcublas\.so\.13/);
    return true;
  });
});

test('probe says why CUDA is unusable and openDevice throws BACKEND_UNAVAILABLE (no driver)', () => {
  const runtime = new URL('../../src/cuda/runtime/index.js', import.meta.url).href;
  const script = `
    import { probeCuda, openDevice } from ${JSON.stringify(runtime)};
    const p = probeCuda();
    let code = 'none';
    try { openDevice(0); } catch (e) { code = e.code + ': ' + e.message; }
    console.log(JSON.stringify({ p, code }));
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, MYRIAD_LIBCUDA: '/nonexistent/libcuda.so.1' },
  });
  assert.equal(r.status, 0, r.stderr);
  const { p, code } = JSON.parse(r.stdout) as { p: { usable: boolean; reason: string }; code: string };
  assert.equal(p.usable, false);
  assert.match(p.reason, /libcuda\.so\.1 could not be loaded from MYRIAD_LIBCUDA/);
  assert.match(code, /^BACKEND_UNAVAILABLE: libcuda\.so\.1/);
});

test('on this machine the probe never throws and gives a one-line reason when unusable', async () => {
  const { probeCuda } = await import('../../src/cuda/runtime/index.js');
  const p = probeCuda();
  if (!p.usable) {
    assert.ok(p.reason.length > 0 && !p.reason.includes('\n'), p.reason);
    console.log(`# probe: ${p.reason}`);
  }
});

test('NVRTC options: the device arch as a CUBIN, C++17, no fast math; PTX only for a device newer than NVRTC', () => {
  assert.equal(targetOption('sm_90', [75, 80, 86, 89, 90, 100]), '--gpu-architecture=sm_90');
  assert.equal(targetOption('sm_90', undefined), '--gpu-architecture=sm_90');
  assert.equal(targetOption('sm_120', [75, 80, 90, 100]), '--gpu-architecture=compute_100');
  const opts = compileOptions('--gpu-architecture=sm_90', ['-DN=8']);
  assert.deepEqual(opts, ['--gpu-architecture=sm_90', '-std=c++17', '-DN=8']);
  assert.ok(!opts.some((o) => o.includes('fast_math') || o.includes('fast-math')));
  assert.equal(formatCudaVersion(13000), '13.0');
  assert.equal(formatCudaVersion(12080), '12.8');
});
