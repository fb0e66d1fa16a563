import type { TableCount } from '../store/copy/copy-sqlite-to-postgres.js';

/** The per-table counts of a copy, as a table of lines: table, rows in SQLite, rows in PostgreSQL, ok or DIFFERS. */
export function countTableLines(counts: readonly TableCount[]): string[] {
  const rows = counts.map((c) => [c.table, String(c.source), String(c.target), c.source === c.target ? 'ok' : 'DIFFERS']);
  const header = ['table', 'sqlite', 'postgres', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 1 || i === 2 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
