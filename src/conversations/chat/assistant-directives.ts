/**
 * Reads the directive lines of the assistant's answer (REFERENCE §8.5). The text is the model's,
 * so it is hostile: this only recognises lines and checks their shape; the caller then checks the
 * names against the discovered workflows and the registered projects. Nothing read here ever
 * reaches a shell or a file path.
 */

/** A workflow name as discovery gives them: letters, digits, `_`, `.`, `-`; no `..`, no `/`. */
const WORKFLOW_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
/** A project id (`owner/repo`, `local/<folder>@<hash>`) or name: no spaces, quotes or shell characters. */
const PROJECT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.@/-]{0,199}$/;
/** A path shown back in a suggested command: nothing a shell would expand. */
const PLAIN_PATH = /^[A-Za-z0-9_./~-][A-Za-z0-9_./ -]{0,499}$/;

const INVOKE_LINE = /^\s*\/invoke-workflow(?:\s+(.*))?$/;
const REGISTER_LINE = /^\s*\/register-project(?:\s+(.*))?$/;

export interface InvokeDirective {
  /** The name as written (for the refusal text; cut). */
  rawName: string;
  rawProject: string | undefined;
  /** Set when the name has the shape of a workflow name. */
  name: string | undefined;
  /** Set when `--project` was given with the shape of a project id or name. */
  project: string | undefined;
}

export interface RegisterDirective {
  name: string | undefined;
  /** Only a path that is plain text (no shell characters); else undefined. */
  path: string | undefined;
}

export interface Directives {
  /** The first `/invoke-workflow` line; later ones are ignored. */
  invoke?: InvokeDirective;
  register: RegisterDirective[];
  /** The answer without its directive lines. */
  prose: string;
}

const safeName = (value: string | undefined, shape: RegExp) =>
  value !== undefined && shape.test(value) && !value.includes('..') ? value : undefined;

export function readDirectives(text: string): Directives {
  const prose: string[] = [];
  const register: RegisterDirective[] = [];
  let invoke: InvokeDirective | undefined;
  for (const line of text.split(/\r?\n/)) {
    const invokeMatch = INVOKE_LINE.exec(line);
    if (invokeMatch) {
      if (!invoke) invoke = invokeDirective(invokeMatch[1] ?? '');
      continue;
    }
    const registerMatch = REGISTER_LINE.exec(line);
    if (registerMatch) {
      const [name, ...rest] = (registerMatch[1] ?? '').trim().split(/\s+/);
      const path = rest.join(' ');
      register.push({ name: safeName(name, WORKFLOW_NAME), path: PLAIN_PATH.test(path) && !path.includes('..') ? path : undefined });
      continue;
    }
    prose.push(line);
  }
  return { ...(invoke ? { invoke } : {}), register, prose: prose.join('\n').trim() };
}

function invokeDirective(args: string): InvokeDirective {
  const words = args.trim().split(/\s+/).filter(Boolean);
  const rawName = words[0] ?? '';
  const at = words.indexOf('--project');
  const rawProject = at >= 0 ? (words[at + 1] ?? '') : undefined;
  // Anything beyond `<name> [--project <p>]` makes the line suspect: refuse it whole.
  const expected = rawProject === undefined ? 1 : 3;
  const wellFormed = words.length === expected && (at === -1 || at === 1);
  return {
    rawName,
    rawProject,
    name: wellFormed ? safeName(rawName, WORKFLOW_NAME) : undefined,
    project: wellFormed && rawProject !== undefined ? safeName(rawProject, PROJECT_NAME) : undefined,
  };
}
