/**
 * The chat's slash commands (docs/conversations.md, "Slash commands"), offered as you type `/`.
 * The server answers them itself (no assistant needed); this list is what its `/help` answers,
 * and the chat test checks the two agree. After `/setproject ` the registered codebases are
 * offered, after `/workflow run ` the workflows the conversation can run.
 *
 * `GET /api/commands` is not this list: it names the command files a workflow's `command:`
 * node can use, which the chat does not take.
 */

export interface SlashCommand {
  /** As `/help` shows it: the command, then its arguments. */
  usage: string;
  description: string;
  /** What the first argument names, when the page can offer its values. */
  argument?: 'codebase' | 'workflow';
}

export const slashCommands: readonly SlashCommand[] = [
  { usage: '/help', description: 'this list' },
  { usage: '/status', description: 'the project, working directory, worktree and running workflows of this conversation' },
  {
    usage: '/setproject <name>',
    description: 'work on a registered codebase (by id or name); clears the working-directory override',
    argument: 'codebase',
  },
  { usage: '/worktree list', description: 'the worktrees of the project' },
  { usage: '/worktree remove', description: 'stop using this conversation’s worktree' },
  { usage: '/workflow list', description: 'the workflows you can run' },
  { usage: '/workflow run <name> [message]', description: 'start a workflow in the background', argument: 'workflow' },
  { usage: '/workflow status', description: 'the workflows of this conversation that are still going' },
  { usage: '/workflow cancel <id>', description: 'cancel a run' },
  { usage: '/workflow resume <id> [--reload]', description: 'continue a failed or paused run (what succeeded is not run again; --reload takes its files as they are now)' },
  { usage: '/workflow abandon <id>', description: 'end a running, paused or failed run for good' },
  { usage: '/workflow approve <id> [comment]', description: 'approve the gate a paused run waits at' },
  { usage: '/workflow reject <id> [reason]', description: 'reject it' },
];

/** The words of a command before its first argument: `/workflow run`. */
export function fixedPart(command: SlashCommand): string {
  return command.usage.split(' ').filter((word) => !/^[<[]/.test(word)).join(' ');
}

export interface Suggestion {
  /** The text the message box holds once it is chosen. */
  text: string;
  label: string;
  description: string;
}

/** What to offer for the text typed so far (one line starting with `/`), given the names known. */
export function suggestionsFor(typed: string, names: { codebases: readonly string[]; workflows: readonly string[] }): Suggestion[] {
  if (!typed.startsWith('/') || typed.includes('\n')) return [];
  for (const command of slashCommands) {
    if (!command.argument) continue;
    const prefix = `${fixedPart(command)} `;
    if (!typed.startsWith(prefix)) continue;
    const partial = typed.slice(prefix.length);
    if (partial.includes(' ')) return [];
    const values = command.argument === 'codebase' ? names.codebases : names.workflows;
    return values
      .filter((value) => value.toLowerCase().includes(partial.toLowerCase()) && value !== partial)
      .slice(0, 20)
      .map((value) => ({ text: `${prefix}${value} `, label: `${prefix}${value}`, description: command.argument === 'codebase' ? 'codebase' : 'workflow' }));
  }
  return slashCommands
    .filter((command) => fixedPart(command).startsWith(typed) && fixedPart(command) !== typed.trimEnd())
    .map((command) => ({
      text: command.usage.includes(' <') || command.usage.includes(' [') ? `${fixedPart(command)} ` : fixedPart(command),
      label: command.usage,
      description: command.description,
    }));
}
