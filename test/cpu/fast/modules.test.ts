/**
 * Compiled WebAssembly modules shared between threads (wasm/runtime.ts): a module named by its
 * generator and parameters is generated and compiled once, a module received from another
 * thread (or pulled in just before a miss) is used instead of generating one, and a compiled
 * module runs in a worker it was posted to. (threads.test.ts checks the pool's results bitwise,
 * with workers that received the caller's modules: streamed first calls.)
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { moduleFactory } from '../../../src/cpu-fast/jit/compile.js';
import { Code, encodeModule } from '../../../src/cpu-fast/wasm/emit.js';
import { OP } from '../../../src/cpu-fast/wasm/opcodes.js';
import { loadModule, receiveModules, shareModules, sharedModules, type SharedModule } from '../../../src/cpu-fast/wasm/runtime.js';
import { Rng } from '../../helpers/random.js';

/** A module of one function `f(x) = x + k`. */
function addModule(k: number): Uint8Array<ArrayBuffer> {
  const code = new Code(['i32']);
  code.get(0).i32(k).op(OP.i32Add);
  return encodeModule([{ name: 'f', params: ['i32'], results: ['i32'], code }]);
}
type Add = (x: number) => number;

describe('WebAssembly modules shared between threads', () => {
  const rng = new Rng(16);
  test('generated and compiled once per source; the listener hears of each new module once', () => {
    const k = rng.int(1, 1000);
    const heard: SharedModule[] = [];
    let generated = 0;
    shareModules({ onCompiled: (m) => heard.push(m) });
    try {
      const gen = (): Uint8Array<ArrayBuffer> => (generated++, addModule(k));
      const source = `test-add:${k}:${rng.int(0, 1 << 30)}`;
      assert.equal((loadModule(source, gen).f as Add)(5), 5 + k);
      assert.equal((loadModule(source, gen).f as Add)(7), 7 + k);
      assert.equal(generated, 1);
      assert.equal(heard.length, 1);
      assert.equal(heard[0]!.source, source);
      assert.ok(heard[0]!.module instanceof WebAssembly.Module);
      assert.ok(sharedModules().some((m) => m.source === source));
    } finally {
      shareModules({});
    }
  });

  test('a module received (or pulled in at a miss) is used, not generated again', () => {
    const k = rng.int(1, 1000);
    const received = { source: `test-received:${k}:${rng.int(0, 1 << 30)}`, key: `received-${k}`, module: new WebAssembly.Module(addModule(k)) };
    receiveModules([received]);
    const never = (): Uint8Array<ArrayBuffer> => assert.fail('generated a module that had been received');
    assert.equal((loadModule(received.source, never).f as Add)(1), 1 + k);
    const late = { source: `test-pulled:${k}:${rng.int(0, 1 << 30)}`, key: `pulled-${k}`, module: new WebAssembly.Module(addModule(2 * k)) };
    let pulls = 0;
    shareModules({ pullModules: () => { pulls++; receiveModules([late]); } });
    try {
      assert.equal((loadModule(late.source, never).f as Add)(1), 1 + 2 * k);
      assert.equal(pulls, 1);
    } finally {
      shareModules({});
    }
  });

  test('moduleFactory names modules by generator and parameters; an anonymous generator is refused', () => {
    let generated = 0;
    const generateAdd = (p: { k: number }): Uint8Array<ArrayBuffer> => (generated++, addModule(p.k));
    const make = moduleFactory<{ k: number }, Add>(generateAdd, 'f', loadModule);
    const k = rng.int(1, 1000);
    assert.equal(make({ k })(3), 3 + k);
    assert.equal(make({ k })(4), 4 + k);
    assert.equal(generated, 1);
    assert.ok(sharedModules().some((m) => m.source === `generateAdd:${JSON.stringify({ k })}`));
    const anonymous = Object.defineProperty((p: { k: number }) => addModule(p.k), 'name', { value: '' });
    assert.throws(() => moduleFactory(anonymous, 'f', loadModule), /needs a name/);
  });

  test('a compiled module posted to a worker instantiates there on its own memory', async () => {
    const k = rng.int(1, 1000);
    const module = new WebAssembly.Module(addModule(k));
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const mem = new WebAssembly.Memory({ initial: 1 });
       parentPort.postMessage(new WebAssembly.Instance(workerData, { env: { mem } }).exports.f(10));`,
      { eval: true, workerData: module },
    );
    const result = await new Promise<number>((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
    await worker.terminate();
    assert.equal(result, 10 + k);
  });
});
