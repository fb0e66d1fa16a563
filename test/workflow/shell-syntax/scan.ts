import { scanReferences } from '../../../src/workflow/substitution/references.js';
import { scanShellBody, type ShellContext } from '../../../src/workflow/substitution/shell-context.js';

/** Each reference's context in `body`, in order, written short: `bare`, `arith $((…)) arith`, `name read bare`... */
export function contexts(body: string): string[] {
  const refs = scanReferences(body);
  return scanShellBody(body, refs.map((r) => r.start)).contexts.map(short);
}

function short(c: ShellContext): string {
  if (c.kind === 'arith' || c.kind === 'name') return `${c.kind} ${c.where} ${c.quoting}`;
  if (c.kind === 'quoted_heredoc') return `quoted_heredoc ${c.delimiter}`;
  return c.kind;
}
