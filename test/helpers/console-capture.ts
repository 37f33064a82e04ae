/**
 * Records every console.log call's arguments in full while a README example runs, so a test can
 * check the values an example prints, not their shortened inspect() text. Typed arrays go to
 * binary files, everything else as JSON. The printing itself is unchanged. Installed by
 * readme-examples.ts, the child process that runs the examples.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type CapturedArg =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'typed'; readonly type: string; readonly file: string; readonly length: number };

export interface ConsoleCapture {
  /** The calls since the last take (or the capture's start), and a fresh list for the next. */
  take(): CapturedArg[][];
}

/** Replaces console.log with a recording one for the rest of the process; typed arrays are written under `dir`. */
export function captureConsole(dir: string): ConsoleCapture {
  let calls: CapturedArg[][] = [];
  let files = 0;
  const original = console.log.bind(console);
  console.log = (...args: unknown[]): void => {
    calls.push(args.map((x): CapturedArg => {
      if (ArrayBuffer.isView(x) && !(x instanceof DataView)) {
        const file = join(dir, `arg-${files++}.bin`);
        writeFileSync(file, new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
        return { kind: 'typed', type: x.constructor.name, file, length: (x as unknown as { length: number }).length };
      }
      return { kind: 'json', value: x };
    }));
    original(...args);
  };
  return { take: () => { const taken = calls; calls = []; return taken; } };
}
