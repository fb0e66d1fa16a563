/**
 * A scripted coding agent, independent of any wire format: what a model would ask its CLI to do
 * (read a file, write one, edit it, run a command) and what it finally says. The local vendor
 * servers (anthropic-server, responses-server, openai-server, gemini-server) render each step in
 * their own wire format, with the tool names and argument names the real CLI offers, so the real
 * CLI executes the tool: a test then judges the session on the worktree (the file, the commit).
 *
 * A step is chosen by how many tool results the conversation already holds: a session of n tool
 * steps answers n + 1 model calls, the last one with `say`. Paths are relative to the agent's
 * working directory unless absolute; a renderer makes them absolute from the working directory
 * the CLI tells its model (every agent CLI names it in its system prompt or context), as a model
 * would. `{cwd}` in a path, content or command is replaced by that directory, and `{artifacts}` by
 * the run's artifacts folder the prompt names (`withArtifacts`), which lies outside it.
 */

export type AgentStep =
  | { tool: 'read'; path: string }
  | { tool: 'write'; path: string; content: string }
  | { tool: 'edit'; path: string; old: string; new: string }
  | { tool: 'run'; command: string }
  /** The final answer: text, or a JSON value for a structured-output node. */
  | { say: string };

/** One node's session: chosen when `match` finds the node's task text in the conversation. */
export interface AgentScript {
  /** Matched against every user-side text of the conversation; absent: matches any session. */
  match?: RegExp;
  /** How many times `match` must be found (see `continuedSession`); default 1. */
  occurrences?: number;
  steps: AgentStep[];
}

/** The script whose `match` fits `conversationText` first (scripts without `match` fit anything). */
export function scriptFor(scripts: readonly AgentScript[], conversationText: string): AgentScript | undefined {
  return scripts.find((s) => s.match === undefined || countMatches(s.match, conversationText) >= (s.occurrences ?? 1));
}

function countMatches(pattern: RegExp, text: string): number {
  return text.match(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`))?.length ?? 0;
}

/**
 * The scripts of one session continued across a loop's iterations (`fresh_context: false`): the
 * conversation of iteration k holds the iteration's prompt (found by `match`) k times and the tool
 * results of the iterations before it, so iteration k's steps are placed after theirs. The last
 * iteration comes first, so that it is the one found once its prompt is there k times.
 */
export function continuedSession(match: RegExp, iterations: readonly AgentStep[][]): AgentScript[] {
  const scripts: AgentScript[] = [];
  let earlierToolSteps = 0;
  iterations.forEach((steps, i) => {
    const earlier = Array.from({ length: earlierToolSteps }, (): AgentStep => ({ say: '(answered in an earlier iteration)' }));
    scripts.unshift({ match, occurrences: i + 1, steps: [...earlier, ...steps] });
    earlierToolSteps += steps.filter((step) => !('say' in step)).length;
  });
  return scripts;
}

/** The step to answer with when the conversation already holds `toolResults` results; the last step repeats. */
export function stepAt(script: AgentScript, toolResults: number): AgentStep {
  const steps = script.steps;
  if (steps.length === 0) throw new Error('an agent script needs at least one step');
  return steps[Math.min(toolResults, steps.length - 1)]!;
}

/** `{cwd}` replaced by the agent's working directory. */
export function withCwd(text: string, cwd: string): string {
  return text.replaceAll('{cwd}', cwd);
}

/**
 * The run's artifacts folder a prompt names once Cairn substituted `$ARTIFACTS_DIR`: the first
 * absolute path ending in `artifacts/runs/<run id>` (a run on a codebase) or `_runs/<run id>/artifacts`.
 */
export function artifactsDirFromRequestText(text: string): string | undefined {
  return /(\/[^\s`'"<>()]*?\/(?:artifacts\/runs\/[0-9a-f-]{36}|_runs\/[0-9a-f-]{36}\/artifacts))(?![\w-])/.exec(text)?.[1];
}

/** `step` with `{artifacts}` replaced by the artifacts folder `requestText` names; throws when it names none and the step needs it. */
export function withArtifacts<S extends object>(step: S, requestText: string): S {
  if (!JSON.stringify(step).includes('{artifacts}')) return step;
  const dir = artifactsDirFromRequestText(requestText);
  if (dir === undefined) throw new Error('the scripted agent found no artifacts folder in the request for a step that names {artifacts}');
  return JSON.parse(JSON.stringify(step), (_key, value: unknown) => (typeof value === 'string' ? value.replaceAll('{artifacts}', dir) : value)) as S;
}

/** An absolute path for `path`: as it is when absolute, else under `cwd`. */
export function absolutePath(path: string, cwd: string): string {
  const p = withCwd(path, cwd);
  return p.startsWith('/') ? p : `${cwd.replace(/\/$/, '')}/${p}`;
}

/**
 * The working directory a CLI told its model, read from the request's text (system prompt,
 * environment context): the first absolute path after one of the phrases the CLIs use.
 */
export function cwdFromRequestText(text: string): string | undefined {
  const patterns = [
    /Primary working directory:\s*(\/[^\s`'"<]+)/,
    /Working directory:\s*(\/[^\s`'"<]+)/i,
    /<cwd>(\/[^<]+)<\/cwd>/,
    /current working directory(?: is)?:?\s*[`'"]?(\/[^\s`'"<]+)/i,
    /working in the directory:?\s*[`'"]?(\/[^\s`'"<]+)/i,
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match) return match[1]!.replace(/[.,;:]$/, '');
  }
  return undefined;
}

/** A session that writes `path`, commits it with `message` and says `summary`: the common proof. */
export function writeAndCommit(path: string, content: string, message: string, summary = `Committed ${path}.`): AgentStep[] {
  return [
    { tool: 'write', path, content },
    { tool: 'run', command: `git add -- '${path}' && git -c user.name=agent -c user.email=agent@localhost commit -q -m '${message}' && git log --oneline -1` },
    { say: summary },
  ];
}
