// Appends the sha256 of every distinct WebAssembly module a process compiles to $WASM_HASH_OUT,
// loaded before anything else (node --import): the check that a change left every generated
// module byte for byte the same (scripts/hash-kernels.ts hashes the CUDA sources only). Record
// the tests' modules with the build before a refactor and with the one after, for each of
// MYRIAD_CPU_FMA unset, =0 and =1, and compare the sets (MYRIAD_CPU_FMA=0 also gives the modules
// of an engine without relaxed SIMD). A test added by the change may compile modules of its own:
// `comm -23` (modules that went missing or changed) must be empty.
//   WASM_HASH_OUT=/tmp/before.txt MYRIAD_CPU_FMA=0 node --import ./scripts/record-wasm-modules.mjs \
//     --test dist/test/cpu/fast/*.test.js
//   (the same after the change, then) diff <(sort -u /tmp/before.txt) <(sort -u /tmp/after.txt)
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';

const out = process.env.WASM_HASH_OUT;
if (!out) throw new Error('record-wasm-modules: set WASM_HASH_OUT to the file to append to');
const seen = new Set();
const Compile = WebAssembly.Module;
class RecordingModule extends Compile {
  constructor(bytes) {
    super(bytes);
    const hash = createHash('sha256').update(bytes).digest('hex');
    if (!seen.has(hash)) {
      seen.add(hash);
      appendFileSync(out, `${hash}\n`);
    }
  }
}
WebAssembly.Module = RecordingModule;
