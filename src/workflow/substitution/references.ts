import { variableNames } from '../../shared/run-variable-names.js';
import type { VariableName } from './variables.js';

/**
 * Finds the references in a node body, in one left-to-right pass:
 *   `$nodeId.output`, `$nodeId.output.field`   the output of another node (ids may contain `-`)
 *   `$LOOP_PREV.nodeId.output[.field]`          a loop_group body node's previous iteration
 *   `$INPUTS.name`                              a declared workflow input
 *   `$NAME` / `${NAME}`                         a run-context variable (see `variables.ts`)
 * Validation and substitution both use this scanner, so what is checked is what is replaced.
 */

export type Reference =
  | { kind: 'output'; nodeId: string; field: string | undefined; start: number; end: number }
  | { kind: 'loop_prev'; nodeId: string; field: string | undefined; start: number; end: number }
  | { kind: 'input'; name: string; start: number; end: number }
  | { kind: 'variable'; name: VariableName; start: number; end: number };

const id = '[A-Za-z_][A-Za-z0-9_-]*';
const field = '[A-Za-z_][A-Za-z0-9_]*';
const vars = variableNames.join('|');
const referencePattern = new RegExp(
  [
    `\\$INPUTS\\.(${id})`,
    `\\$LOOP_PREV\\.(${id})\\.output(?:\\.(${field}))?`,
    `\\$(${id})\\.output(?:\\.(${field}))?`,
    `\\$(${vars})(?![A-Za-z0-9_])`,
    `\\$\\{(${vars})\\}`,
  ].join('|'),
  'g',
);

/** Node ids that cannot be output producers: reserved words of the reference syntax. */
const reservedIds = new Set(['INPUTS', 'LOOP_PREV']);

/** Every reference in `text`, in order of appearance. */
export function scanReferences(text: string): Reference[] {
  const found: Reference[] = [];
  for (const m of text.matchAll(referencePattern)) {
    const start = m.index;
    const end = start + m[0].length;
    if (m[1] !== undefined) found.push({ kind: 'input', name: m[1], start, end });
    else if (m[2] !== undefined) found.push({ kind: 'loop_prev', nodeId: m[2], field: m[3], start, end });
    else if (m[4] !== undefined && !reservedIds.has(m[4])) {
      found.push({ kind: 'output', nodeId: m[4], field: m[5], start, end });
    } else if (m[6] !== undefined || m[7] !== undefined) {
      found.push({ kind: 'variable', name: (m[6] ?? m[7]) as VariableName, start, end });
    }
  }
  return found;
}

/**
 * Removes Markdown code (fenced blocks and inline backticks) from prose. Prompts often show
 * authors example syntax such as `$other-node.output` inside code; validation skips those so
 * documentation inside a prompt is not mistaken for a live reference.
 */
export function stripMarkdownCode(text: string): string {
  return text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
}

/** Replaces every reference in `text` with what `replace` returns for it (undefined keeps it). */
export function replaceReferences(text: string, replace: (ref: Reference) => string | undefined): string {
  let out = '';
  let last = 0;
  for (const ref of scanReferences(text)) {
    const replacement = replace(ref);
    if (replacement === undefined) continue;
    out += text.slice(last, ref.start) + replacement;
    last = ref.end;
  }
  return out + text.slice(last);
}
