/**
 * One table printer with its columns declared once ({ header, format, value }), so a header can
 * never drift from its rows (STYLE.md: KBLAS printed SYRK's header over potrf's rows).
 */
export interface Column<Row> {
  header: string;
  value: (row: Row) => string | number | undefined;
  /** Digits after the point for numbers (default 2). */
  digits?: number;
  /** Left out of a table where no row has a value (the vendor columns on the CPU). */
  optional?: boolean;
}

function cell<Row>(c: Column<Row>, row: Row): string {
  const v = c.value(row);
  if (v === undefined) return '-';
  if (typeof v === 'string') return v;
  return formatNumber(v, c.digits);
}

/**
 * A number with `digits` after the point; a non-zero value that would round to zero keeps two
 * significant digits instead (0.0042, 3.1e-7), so a small value never prints as "0.0".
 */
export function formatNumber(v: number, digits?: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v) && digits === undefined) return String(v);
  const fixed = v.toFixed(digits ?? 2);
  if (v !== 0 && Number(fixed) === 0) return Math.abs(v) >= 1e-4 ? v.toPrecision(2) : v.toExponential(1);
  return fixed;
}

/** 'text': aligned columns for a terminal; 'markdown': a GitHub table (BENCHMARKS.md). */
export type TableStyle = 'text' | 'markdown';
export const TABLE_STYLES: readonly TableStyle[] = ['text', 'markdown'];

/** Renders rows as an aligned text table (numbers right-aligned) or a markdown table. */
export function formatTable<Row>(rows: readonly Row[], allColumns: readonly Column<Row>[], style: TableStyle = 'text'): string {
  const columns = allColumns.filter((c) => !c.optional || rows.some((r) => c.value(r) !== undefined));
  const cells = rows.map((r) => columns.map((c) => cell(c, r)));
  if (style === 'markdown') {
    const line = (parts: string[]): string => `| ${parts.join(' | ')} |`;
    return [line(columns.map((c) => c.header)), line(columns.map(() => '---')), ...cells.map(line)].join('\n');
  }
  const widths = columns.map((c, j) => Math.max(c.header.length, ...cells.map((r) => r[j]!.length)));
  const line = (parts: string[]): string => parts.map((p, j) => p.padStart(widths[j]!)).join('  ');
  return [line(columns.map((c) => c.header)), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}
