/** Human output: colours that switch off cleanly, durations, and aligned tables. */

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

function sgr(open: number, close: number, enabled: boolean) {
  return (text: string) => (enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text);
}

/** ANSI styles when `enabled`, identity functions otherwise. */
export function createStyle(enabled: boolean): Style {
  return {
    bold: sgr(1, 22, enabled),
    dim: sgr(2, 22, enabled),
    red: sgr(31, 39, enabled),
    green: sgr(32, 39, enabled),
    yellow: sgr(33, 39, enabled),
    cyan: sgr(36, 39, enabled),
  };
}

/** `850ms`, `12.3s`, `4m 05s`, `2h 03m`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const totalSeconds = Math.round(seconds);
  const minutes = Math.floor(totalSeconds / 60);
  if (minutes < 60) return `${minutes}m ${String(totalSeconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** The time between two ISO timestamps, formatted; empty when either is missing. */
export function formatSpan(from: string | null | undefined, to: string | null | undefined): string {
  if (!from || !to) return '';
  return formatDuration(Date.parse(to) - Date.parse(from));
}

/** A local, second-precision rendering of an ISO timestamp (`2025-01-31 14:05:09`). */
export function formatTimestamp(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** The first line of `text`, cut to `max` characters with an ellipsis. */
export function firstLine(text: string | null | undefined, max = 80): string {
  if (!text) return '';
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The last `count` non-blank lines of `text`, each cut to `max` characters; `[]` for none. */
export function tailLines(text: string | null | undefined, count: number, max = 200): string[] {
  if (!text) return [];
  const lines = text.split('\n').map((line) => line.trimEnd()).filter((line) => line.length > 0);
  return lines.slice(-count).map((line) => (line.length > max ? `${line.slice(0, max - 1)}…` : line));
}

// eslint-disable-next-line no-control-regex
const ansiPattern = /\u001b\[[0-9;]*m/g;

function visibleLength(text: string): number {
  return text.replace(ansiPattern, '').length;
}

/**
 * Left-aligned columns separated by two spaces; the last column is not padded. Cells may carry
 * colour codes: widths are measured on the visible text.
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[], style?: Style): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => visibleLength(row[i] ?? ''))));
  const render = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visibleLength(cell))))
      .join('  ')
      .trimEnd();
  const head = render(header);
  return [style ? style.bold(head) : head, ...rows.map(render)];
}
