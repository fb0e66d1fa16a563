/**
 * `/cairn run <workflow> [args]` in an issue or pull-request comment: the first line that starts
 * with `/cairn` (after spaces) is the command; what follows the workflow's name, to the end of the
 * comment, is its arguments (the run's message, `$ARGUMENTS`). Text, never code: nothing here is
 * evaluated, and the name is only ever compared with the hook's allowed workflows.
 */

export type CommentCommand =
  | { kind: 'run'; workflow: string; args: string }
  | { kind: 'none' }
  | { kind: 'malformed'; reason: string };

const COMMAND_LINE = /^[ \t]*\/cairn(?=\s|$)(.*)$/m;

export function parseCommentCommand(body: string): CommentCommand {
  const match = COMMAND_LINE.exec(body);
  if (!match) return { kind: 'none' };
  const rest = body.slice(match.index + match[0].length - match[1]!.length);
  const words = /^[ \t]+run[ \t]+(\S+)([\s\S]*)$/.exec(rest);
  if (!words) return { kind: 'malformed', reason: 'a /cairn command must read `/cairn run <workflow> [args]`' };
  return { kind: 'run', workflow: words[1]!, args: words[2]!.trim() };
}
