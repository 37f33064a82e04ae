/**
 * The child process that runs README examples (dist/test/readme/example-N.js) one after the other,
 * in the order given: `node readme-examples.js DIR N...`. One Node start-up and one load of the
 * library for them all, where a process each cost about a second of CPU apiece on Node 20. Before
 * each example it prints the marker line (readme-run.ts splits stdout there); after it, it writes
 * DIR/example-N.json: the example's console.log calls (console-capture.ts), or the error it threw.
 * The first example runs in a fresh process, as a user's program would; a later one after the
 * earlier ones, each with its own open() and arrays (the examples share no state of their own).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { captureConsole } from './console-capture.js';
import { exampleMarker, type ExampleRecord } from './readme-run.js';

const [dir, ...numbers] = process.argv.slice(2);
if (!dir || numbers.length === 0) throw new Error('usage: node readme-examples.js DIR N...');
const readme = fileURLToPath(new URL('../readme/', import.meta.url));
const capture = captureConsole(dir);
for (const n of numbers) {
  process.stdout.write(exampleMarker(Number(n)));
  let record: ExampleRecord;
  try {
    await import(pathToFileURL(join(readme, `example-${n}.js`)).href);
    record = { calls: capture.take() };
  } catch (e) {
    capture.take();
    record = { error: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
  writeFileSync(join(dir, `example-${n}.json`), JSON.stringify(record));
}
