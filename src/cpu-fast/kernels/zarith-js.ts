/**
 * Complex arithmetic as generated JavaScript, shared by the complex kernels' generators: written
 * exactly as the complex reference computes it (src/cpu/complex/scalar.ts), so that a kernel that
 * emits it keeps the reference's results bit for bit.
 */
import type { Emitter } from '../jit/compile.js';

/**
 * outRe, outIm := (ar + i ai) / (br + i bi) by Smith's algorithm, the reference's divideInto
 * spelled inline (arguments are expressions; ar and ai are read before out is written).
 */
export function emitDivide(e: Emitter, outRe: string, outIm: string, ar: string, ai: string, br: string, bi: string): void {
  e.open(`{ const dr = ${br}, di = ${bi}, nr = ${ar}, ni = ${ai};`);
  e.open('if (Math.abs(dr) >= Math.abs(di)) {');
  e.line('const r = di / dr; const d = dr + di * r;');
  e.line(`${outRe} = (nr + ni * r) / d; ${outIm} = (ni - nr * r) / d;`);
  e.middle('} else {');
  e.line('const r = dr / di; const d = di + dr * r;');
  e.line(`${outRe} = (nr * r + ni) / d; ${outIm} = (ni * r - nr) / d;`);
  e.close();
  e.close();
}

export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
