import type { DefinitionNode } from '../schema/node-schema.js';
import { scanReferences, type Reference } from '../substitution/references.js';
import { scanShellBody, type ShellContext, type ShellScan } from '../substitution/shell-context.js';
import { unquoteHeredoc } from '../substitution/shell-heredoc-rewrite.js';
import { namesInArithmetic } from '../shell-syntax/arithmetic-names.js';
import { checkFirstHint, INTEGER_RULE, lineOf, NAME_RULE, onLine } from '../substitution/shell-value-rules.js';
import { variableNames } from '../../shared/run-variable-names.js';

/**
 * Warnings (not errors) for references in shell bodies (`bash`, `loop.bash`, `until_bash`,
 * `on_reject.bash`) that stand where the value is checked or not substituted (see shell-body.ts),
 * each naming the reference and its line in the script:
 *   arithmetic          `$((…))`, `((…))`, `let`, `[[ -gt ]]`, `declare -i`, subscripts,
 *                       `${v:off:len}`: only a decimal integer is accepted, anything else fails
 *                       the node before it runs
 *   a variable name     `read`, `unset`, `printf -v`, `declare`, `[[ -v ]]`: only a plain name
 *   a bare name         a run variable (`ARGUMENTS`, `INPUTS_X`) read inside arithmetic: its
 *                       value must be an integer or empty
 *   quoted heredoc      only where Cairn cannot rewrite it (inside backticks, an odd delimiter)
 *   comment, \$escaped  not substituted at all
 * Run variables (`$ARGUMENTS`, `${ARTIFACTS_DIR}`...) are also environment variables the shell
 * reads by itself, so one in a comment or after a backslash behaves as in any shell script and is
 * not reported.
 */

type Label = (id: string) => string;

export function checkShellReferences(nodes: readonly DefinitionNode[], label: Label = (id) => `Node '${id}'`): string[] {
  const warnings: string[] = [];
  for (const node of nodes) {
    const name = label(node.id);
    for (const [field, body] of shellBodies(node)) {
      for (const warning of describeBody(body)) warnings.push(`${name}: ${field === 'bash' ? '' : `${field}: `}${warning}`);
    }
    if ('loop_group' in node) {
      warnings.push(...checkShellReferences(node.loop_group.nodes, (id) => `${name} → loop_group node '${id}'`));
    }
  }
  return [...new Set(warnings)];
}

function shellBodies(node: DefinitionNode): [string, string][] {
  const bodies: [string, string][] = [];
  if ('bash' in node) bodies.push(['bash', node.bash]);
  if ('loop' in node && node.loop.bash !== undefined) bodies.push(['loop.bash', node.loop.bash]);
  if ('loop' in node && node.loop.until_bash !== undefined) bodies.push(['loop.until_bash', node.loop.until_bash]);
  if ('approval' in node && node.approval.on_reject?.bash !== undefined) {
    bodies.push(['approval.on_reject.bash', node.approval.on_reject.bash]);
  }
  if ('loop_group' in node && node.loop_group.until_bash !== undefined) {
    bodies.push(['loop_group.until_bash', node.loop_group.until_bash]);
  }
  return bodies;
}

function describeBody(body: string): string[] {
  const refs = scanReferences(body);
  const scan = scanShellBody(body, refs.map((r) => r.start));
  const warnings = refs.flatMap((ref, i) => {
    const warning = describe(ref, body.slice(ref.start, ref.end), scan.contexts[i]!, onLine(lineOf(body, ref.start)), scan, body);
    return warning === undefined ? [] : [{ at: ref.start, warning }];
  });
  for (const { name, at, where } of namesInArithmetic(body, scan.arithmetic)) {
    if (!isRunVariable(name)) continue;
    warnings.push({
      at,
      warning:
        `'${name}' ${onLine(lineOf(body, at))} is read as a variable in ${where}: bash evaluates its value as arithmetic, so it ` +
        `must be ${INTEGER_RULE} or empty, or the node fails before it runs. ${checkFirstHint(`$${name}`)}`,
    });
  }
  return warnings.sort((a, b) => a.at - b.at).map((w) => w.warning);
}

function describe(ref: Reference, written: string, context: ShellContext, line: string, scan: ShellScan, body: string): string | undefined {
  switch (context.kind) {
    case 'arith':
      return (
        `'${written}' ${line} is in ${context.where}, where bash evaluates it as arithmetic: its value must be ${INTEGER_RULE}, ` +
        `or the node fails before it runs (arithmetic runs commands hidden in a value). ${checkFirstHint(written)}`
      );
    case 'name':
      return (
        `'${written}' ${line} is where bash reads a variable name (${context.where}): its value must be ${NAME_RULE}, ` +
        'or the node fails before it runs (a subscript in a name is arithmetic, which runs commands hidden in a value).'
      );
    case 'quoted_heredoc': {
      const rewrite = unquoteHeredoc(body, scan.heredocs[context.heredoc]!, []);
      if (rewrite.ok) return undefined;
      return `'${written}' ${line} is in a heredoc quoted as <<'${context.delimiter}' ${rewrite.reason}; the node fails when it runs.`;
    }
    case 'comment':
      if (ref.kind === 'variable') return undefined;
      return `'${written}' ${line} is in a comment, so it is not substituted.`;
    case 'escaped':
      if (ref.kind === 'variable') return undefined;
      return `'${written}' ${line} follows a backslash, so it is not substituted: the shell gets the text after the backslash as written.`;
    default:
      return undefined;
  }
}

/** A variable Cairn puts in the environment of every shell body: a run variable or an input. */
function isRunVariable(name: string): boolean {
  return (variableNames as readonly string[]).includes(name) || /^INPUTS_[A-Z0-9_]+$/.test(name);
}
