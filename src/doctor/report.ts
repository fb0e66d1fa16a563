import type { Style } from '../terminal/format.js';
import type { CheckResult } from './check.js';

/** How `cairn doctor` prints its checks: one line each, the status first, then what to do. */

const statusText = { ok: 'ok', warn: 'warn', failed: 'FAILED' } as const;

/** Each status in its colour on a terminal (padded first, so the columns stay aligned). */
function paint(status: CheckResult['status'], style: Style): string {
  const text = statusText[status].padEnd(6);
  return status === 'ok' ? style.green(text) : status === 'warn' ? style.yellow(text) : style.red(text);
}

export function renderDoctorReport(checks: readonly CheckResult[], style: Style): string[] {
  const nameWidth = Math.max(...checks.map((c) => c.name.length));
  const lines = checks.map((c) => {
    const head = `${paint(c.status, style)}  ${c.name.padEnd(nameWidth)}  ${c.detail}`;
    return c.next === undefined ? head : `${head}. Next: ${c.next}`;
  });
  const count = (status: CheckResult['status']) => checks.filter((c) => c.status === status).length;
  lines.push('', `${count('ok')} ok, ${count('warn')} warn, ${count('failed')} FAILED`);
  return lines;
}

/** The `--json` object: the home checked and every check (`next` is null when ok). */
export function doctorReportJson(home: string, checks: readonly CheckResult[]) {
  return {
    home,
    ok: checks.every((c) => c.status !== 'failed'),
    checks: checks.map((c) => ({ id: c.id, name: c.name, status: c.status, detail: c.detail, next: c.next ?? null })),
  };
}
