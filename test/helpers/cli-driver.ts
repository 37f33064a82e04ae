/**
 * Runs the myriad command (dist/src/cli.js) once per call, one after the other, in this one Node
 * process: `node cli-driver.js` with a JSON array of calls ({ args, env }: an argument list and the
 * environment variables set for that run alone) on stdin; prints a JSON array of { status, stdout,
 * stderr } on stdout. Each run imports cli.js afresh (a query string makes a new
 * module instance; the library's modules load once), with process.argv set, stdout and stderr
 * captured, and process.exit recording the status the command exits with and ending that run: the
 * command's own entry code (its error lines, its exit statuses) runs as in a process of its own, but
 * the few hundred modules load once instead of once a run (about a second of CPU each on Node 20).
 */
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface CliRun { status: number | null; stdout: string; stderr: string }

/** One run of the command: its arguments, and environment variables set for it (restored after). */
export interface CliCall { readonly args: readonly string[]; readonly env?: Readonly<Record<string, string>> }

const cli = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

type Write = typeof process.stdout.write;

/** One run: the command's output and the status it passed to process.exit. */
async function runOne({ args, env = {} }: CliCall, index: number): Promise<CliRun> {
  const out: string[] = [], err: string[] = [];
  const capture = (into: string[]): Write => ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    done?.();
    return true;
  }) as Write;
  const stdoutWrite = process.stdout.write, stderrWrite = process.stderr.write, exit = process.exit;
  const saved = Object.keys(env).map((k) => [k, process.env[k]] as const);
  Object.assign(process.env, env);
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  process.argv = [process.execPath, cli, ...args];
  try {
    const status = await new Promise<number | null>((resolve, reject) => {
      process.exit = ((code?: number | string | null) => { resolve(code === undefined || code === null ? 0 : Number(code)); }) as typeof process.exit;
      import(`${pathToFileURL(cli).href}?run=${index}`).catch(reject);
    });
    return { status, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
    process.exit = exit;
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const calls = JSON.parse(await readStdin()) as CliCall[];
const results: CliRun[] = [];
for (const [i, call] of calls.entries()) results.push(await runOne(call, i));
process.stdout.write(JSON.stringify(results), () => process.exit(0));
