import { firstLine, formatDuration, formatTable, type Style } from '../terminal/format.js';
import type { StressResult } from './stress-run.js';

/** How a stress pass is shown: a table of checks and one of figures, or one JSON object. */

const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;

function resultCell(ok: boolean | null, style: Style): string {
  if (ok === null) return style.dim('skipped');
  return ok ? style.green('ok') : style.red('FAILED');
}

function figureRows(result: StressResult): string[][] {
  const { counts, memory } = result;
  const kinds = Object.entries(counts.killsByKind).map(([kind, n]) => `${kind} ${n}`).join(', ') || 'none';
  const rows = [
    ['runs', `${counts.runs} started (${counts.extraRuns} of them extra: nothing was in flight at a kill), ${counts.childRuns} child runs`],
    ['nodes completed', String(counts.nodesCompleted)],
    ['attempts', `${counts.attempts} (${counts.reruns} re-runs; ${counts.inFlightAtKills} attempts in flight at a kill)`],
    ['interrupted / failed attempts', `${counts.interruptedAttempts} / ${counts.failedAttempts}`],
    ['kills landed', `${counts.killsLanded} of ${result.options.kills}: ${kinds}`],
    ['gates answered', String(counts.gatesAnswered)],
    ['resumes needed', String(counts.resumes)],
    ['AI calls (stand-in)', String(counts.aiCalls)],
  ];
  if (result.options.diskFull) {
    const held = result.diskFulls.reduce((sum, f) => sum + f.heldMs, 0);
    rows.push(['disk fills', `${result.diskFulls.length}, full for ${formatDuration(held)} in all`]);
  }
  if (memory) rows.push(['server RSS after start / before stop', `${mib(memory.beforeKiB)} / ${mib(memory.afterKiB)}`]);
  rows.push(['duration', formatDuration(result.durationMs)]);
  return rows;
}

/** The lines a person reads: the checks, the figures, and for each failure what to look at. */
export function renderStressReport(result: StressResult, style: Style): string[] {
  const o = result.options;
  const lines = [
    style.bold(`cairn stress: ${o.runs} runs of ${o.nodes} nodes, ${o.kills} kills (${o.kill})${o.diskFull ? ', a disk filled between batches' : ''}, seed ${o.seed}, server ${result.url}`),
    '',
    ...formatTable(['check', 'result', 'detail'], result.checks.map((c) => [c.name, resultCell(c.ok, style), c.ok === false ? firstLine(c.detail, 90) : c.detail]), style),
    '',
    ...formatTable(['figure', 'value'], figureRows(result), style),
    '',
  ];
  const failed = result.checks.filter((c) => c.ok === false);
  for (const check of failed) lines.push(style.red(`FAILED ${check.id}: ${check.detail}`), `  look at: ${check.next ?? 'the server log'}`);
  if (result.fatal) lines.push(style.red(`stopped early: ${result.fatal}`));
  if (result.keptHome) {
    const mounted = o.diskFull ? ` It is a tmpfs: \`umount ${result.keptHome}\` when done.` : '';
    lines.push(`The scratch home is kept for a look: ${result.keptHome} (its server log: stress-server.log).${mounted}`);
  }
  lines.push(result.ok ? style.green('All checks hold.') : style.red(`${failed.length} check(s) failed.`));
  return lines;
}

/** The one JSON object of `--json`. */
export function stressReportJson(result: StressResult): unknown {
  return {
    ok: result.ok,
    options: result.options,
    url: result.url,
    keptHome: result.keptHome,
    checks: result.checks,
    counts: result.counts,
    kills: result.kills.map((k) => ({ ...k, at: new Date(k.atMs).toISOString() })),
    diskFulls: result.diskFulls.map((f) => ({ ...f, at: new Date(f.atMs).toISOString() })),
    memory: result.memory,
    fatal: result.fatal,
    durationMs: result.durationMs,
  };
}
