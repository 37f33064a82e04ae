/**
 * The examples' command-line counts: `positiveArg(2, 'filters', 50_000)` reads process.argv[2] as a
 * positive integer (the default where absent); anything else prints one usage line and exits 2.
 */
export function positiveArg(index: number, name: string, fallback: number): number {
  const text = process.argv[index];
  if (text === undefined) return fallback;
  const value = Number(text);
  if (Number.isInteger(value) && value > 0) return value;
  console.error(`${name}: expected a positive integer, got '${text}'`);
  process.exit(2);
}
