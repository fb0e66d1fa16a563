/**
 * Pi has no permission system of its own, but an extension may block a tool call before it runs
 * (`pi.on('tool_call')` returning `{ block: true, reason }`; Pi answers the model with the reason
 * as the tool's error). At `workspace` the adapter loads this one (`-e <file>`, which works also
 * with `--no-extensions`): a `write` or `edit` whose target, resolved as Pi's own tools resolve it
 * (a leading `@` dropped, `~` expanded, relative to Pi's working directory) and then through every
 * symbolic link, lies outside the allowed folders is refused. The resolved path is written back
 * into the call, so the tool writes exactly what was checked. `bash` is not confined: a command
 * runs as the server's user.
 */

/** Every refusal's text starts with this, so the stream reader can tell a refusal from a failed tool. */
export const PI_GUARD_REFUSAL = 'Refused by Cairn (permissions: workspace):';

/** The extension's source (an ES module Pi loads), with `roots` (real, absolute paths) built in. */
export function piWorkspaceGuardSource(roots: readonly string[]): string {
  // JSON is valid JavaScript: the folders enter the module as data, never as code.
  return `// Written by Cairn for one attempt: refuses file writes outside the run's folders.
import { lstatSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';

const roots = ${JSON.stringify(roots)};
const refusal = ${JSON.stringify(PI_GUARD_REFUSAL)};
const unicodeSpaces = /[\\u00A0\\u2000-\\u200A\\u202F\\u205F\\u3000]/g;

function target(path, cwd) {
  let p = path.startsWith('@') ? path.slice(1) : path;
  p = p.replace(unicodeSpaces, ' ');
  if (p === '~') p = homedir();
  else if (p.startsWith('~/')) p = homedir() + p.slice(1);
  return isAbsolute(p) ? p : resolve(cwd, p);
}

// The real path of p: its deepest existing ancestor resolved through links, the rest appended.
// A dangling link could send the write anywhere: undefined.
function realTarget(p) {
  const rest = [];
  let current = p;
  for (;;) {
    try {
      return join(realpathSync(current), ...rest);
    } catch {
      try {
        lstatSync(current);
        return undefined;
      } catch {}
      const parent = dirname(current);
      if (parent === current) return undefined;
      rest.unshift(basename(current));
      current = parent;
    }
  }
}

const inside = (p) => roots.some((root) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep));

export default function cairnWorkspaceGuard(pi) {
  pi.on('tool_call', (event, ctx) => {
    if (event.toolName !== 'write' && event.toolName !== 'edit') return undefined;
    const input = event.input;
    if (!input || typeof input.path !== 'string') return undefined;
    const absolute = target(input.path, ctx.cwd);
    const real = realTarget(absolute);
    if (real === undefined || !inside(real)) {
      return { block: true, reason: refusal + ' ' + JSON.stringify(input.path) + ' is outside the working directory and the run\\'s artifacts folder (' + roots.join(', ') + ')' };
    }
    input.path = real;
    return undefined;
  });
}
`;
}
