import type { DryRunNode, DryRunTrace } from '../wire/dry-run.js';
import type { Style } from '../terminal/format.js';

/**
 * `cairn workflow run --dry-run`: the server's trace as lines. One line per node, in the trace's
 * order: what a run would do with it, its id, kind and dependencies; then, indented, why, the
 * provider and model it would call, what the kind does, and its text (at most TEXT_LINES lines).
 */

const TEXT_LINES = 12;

const labels: Record<DryRunNode['decision'], string> = {
  run: 'run',
  skip: 'skip',
  conditional: 'maybe',
  fail: 'fail',
  not_reached: 'unreached',
};

function modelText(model: NonNullable<DryRunNode['model']>): string {
  const name = model.model ?? "the provider's default model";
  const via = model.preset !== undefined ? ` via ${model.preset}` : '';
  const effort = model.effort !== undefined ? `, effort ${model.effort}` : '';
  const from = model.source === 'provider_default' ? '' : ` (from the ${model.source})`;
  return `${model.provider} ${name}${via}${effort}${from}`;
}

function nodeLines(node: DryRunNode, style: Style): string[] {
  const after = node.dependsOn.length > 0 ? `  after ${node.dependsOn.join(', ')}` : '';
  const rule = node.triggerRule !== 'all_success' ? ` (${node.triggerRule})` : '';
  const label = labels[node.decision].padEnd(10);
  const lines = [`${node.decision === 'fail' ? style.red(label) : label}${style.bold(node.id)}  ${node.kind}${after}${rule}`];
  const more = (key: string, value: string) => lines.push(`    ${style.dim(`${key}:`)} ${value}`);
  if (node.reason !== undefined) more('why', node.reason);
  if (node.model) more('model', modelText(node.model));
  if (node.detail !== undefined) more('does', node.detail);
  if (node.text !== undefined) {
    const text = node.text.split('\n');
    more('text', text[0]!);
    for (const line of text.slice(1, TEXT_LINES)) lines.push(`          ${line}`);
    if (text.length > TEXT_LINES) lines.push(`          … ${text.length - TEXT_LINES} more lines (--json shows them all)`);
  }
  if (node.stubbed) more('stubs', node.stubbed.map((id) => `${id}.output`).join(', '));
  return lines;
}

export function dryRunLines(trace: DryRunTrace, style: Style): string[] {
  const inputs = Object.entries(trace.inputs).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  const { counts } = trace;
  return [
    `Dry run of workflow ${style.bold(trace.workflow)}: nothing was run, spent or created.`,
    ...(inputs.length > 0 ? [`inputs   ${inputs.join(' ')}`] : []),
    ...trace.nodes.flatMap((node) => nodeLines(node, style)),
    `${counts.run} would run, ${counts.skip} skipped, ${counts.conditional} depend on runtime values, ` +
      `${counts.fail} would fail, ${counts.not_reached} not reached.`,
  ];
}
