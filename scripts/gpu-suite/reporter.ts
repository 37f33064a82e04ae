/**
 * A node:test reporter for the GPU suite's runner: every test result as one marked JSON line
 * (report.ts reads them back), the file's own stdout and stderr passed through as they are.
 *   node --test --test-reporter=./dist/scripts/gpu-suite/reporter.js file.test.js
 * (Node 20, 22 and 24 take a module path as a reporter.)
 */
import { formatRecord, type ResultRecord } from './report.js';

/** The part of a node:test event this reporter reads. */
interface TestEvent {
  readonly type: string;
  readonly data?: {
    readonly name?: string;
    readonly nesting?: number;
    readonly skip?: string | boolean;
    readonly todo?: string | boolean;
    readonly message?: string;
    readonly details?: {
      readonly type?: string;
      readonly duration_ms?: number;
      readonly error?: { readonly message?: string; readonly failureType?: string; readonly cause?: unknown };
    };
  };
}

const MESSAGE_LINES = 6;

function messageOf(error: { readonly message?: string; readonly cause?: unknown } | undefined): string | undefined {
  if (!error) return undefined;
  const cause = error.cause;
  const text = cause instanceof Error ? cause.message
    : typeof cause === 'object' && cause !== null && typeof (cause as { message?: unknown }).message === 'string' ? (cause as { message: string }).message
      : typeof cause === 'string' ? cause : error.message;
  return text === undefined ? undefined : text.split('\n').slice(0, MESSAGE_LINES).join('\n');
}

/** The record of a test:pass or test:fail event. */
export function recordOf(event: TestEvent): ResultRecord {
  const d = event.data ?? {};
  const reason = (x: string | boolean | undefined): string | undefined => (x === undefined || x === false ? undefined : x === true ? '' : x);
  const skip = reason(d.skip), todo = reason(d.todo);
  const message = event.type === 'test:fail' ? messageOf(d.details?.error) : undefined;
  const failureType = d.details?.error?.failureType;
  return {
    ok: event.type === 'test:pass',
    name: d.name ?? '(unnamed)',
    nesting: d.nesting ?? 0,
    suite: d.details?.type === 'suite',
    ...(skip !== undefined ? { skip } : {}),
    ...(todo !== undefined ? { todo } : {}),
    ...(failureType !== undefined && event.type === 'test:fail' ? { failureType } : {}),
    ...(message !== undefined ? { message } : {}),
    ...(d.details?.duration_ms !== undefined ? { ms: Math.round(d.details.duration_ms) } : {}),
  };
}

export default async function* reporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  for await (const event of source) {
    if (event.type === 'test:pass' || event.type === 'test:fail') yield `${formatRecord(recordOf(event))}\n`;
    else if (event.type === 'test:stdout' || event.type === 'test:stderr') yield event.data?.message ?? '';
  }
}
