import type { DefinitionNode } from './node-schema.js';
import { scanReferences, type Reference } from './references.js';
import { shellContextsAt, type ShellContext } from './shell-context.js';

/**
 * Warnings (not errors) for references in shell bodies (`bash`, `loop.until_bash`,
 * `loop_group.until_bash`) that stand where substitution cannot hand the value over through the
 * environment (see shell-body.ts):
 *   $((…)), ((…))       the value's text is written in, and only a decimal integer is accepted:
 *                       anything else fails the node when it runs
 *   comment, \$escaped  not substituted at all
 * Run variables (`$ARGUMENTS`, `${ARTIFACTS_DIR}`...) are also environment variables the shell
 * reads by itself, so one in a comment or after a backslash behaves as in any shell script and is
 * not reported; in arithmetic it is checked like any other reference. A quoted heredoc takes any
value (shell-heredoc-rewrite.ts).
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
  if (refs.length === 0) return [];
  const contexts = shellContextsAt(body, refs.map((r) => r.start));
  return refs.flatMap((ref, i) => {
    const warning = describe(ref, body.slice(ref.start, ref.end), contexts[i]!);
    return warning === undefined ? [] : [warning];
  });
}

function describe(ref: Reference, written: string, context: ShellContext): string | undefined {
  switch (context.kind) {
    case 'arith':
      return (
        `'${written}' is inside $((…)) or ((…)): its value is written in as text and must be a decimal integer, ` +
        `or the node fails when it runs (arithmetic can run commands). To accept other values, read it into a ` +
        `variable first and check it (n=${written}), then use $((n …)).`
      );
    case 'comment':
      if (ref.kind === 'variable') return undefined;
      return `'${written}' is in a comment, so it is not substituted.`;
    case 'escaped':
      if (ref.kind === 'variable') return undefined;
      return `'${written}' follows a backslash, so it is not substituted: the shell gets the text after the backslash as written.`;
    default:
      return undefined;
  }
}
