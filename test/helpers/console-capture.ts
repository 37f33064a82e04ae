/**
 * Preloaded into a README example (`node --import <this> example-N.js`, MYRIAD_CAPTURE_DIR set):
 * records every console.log call's arguments in full, so a test can check the values an example
 * prints, not their shortened inspect() text. Typed arrays go to binary files, everything else
 * as JSON; written when the process exits. The printing itself is unchanged.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type CapturedArg =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'typed'; readonly type: string; readonly file: string; readonly length: number };

const dir = process.env['MYRIAD_CAPTURE_DIR'];
if (dir) {
  const calls: CapturedArg[][] = [];
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
  process.on('exit', () => writeFileSync(join(dir, 'calls.json'), JSON.stringify(calls)));
}
