/**
 * A command in an issue or pull-request comment: `/cairn run <workflow> [args]` (the first line
 * that starts with `/cairn`, after spaces), or a mention of the bot, `@cairn run <workflow> [args]`
 * (anywhere in a line; `@<the token's user> run ...` too, when the caller names that login).
 * What follows the workflow's name, to the end of the comment, is its arguments (the run's
 * message, `$ARGUMENTS`). Text, never code: nothing here is evaluated, and the name is only ever
 * compared with the hook's allowed workflows.
 */

export type CommentCommand =
  | { kind: 'run'; workflow: string; args: string }
  | { kind: 'none' }
  | { kind: 'malformed'; reason: string };

/** The name every hook answers to in a mention, whatever its token's user is called. */
export const BOT_MENTION = 'cairn';

const COMMAND_LINE = /^[ \t]*\/cairn(?=\s|$)(.*)$/m;
const RUN_WORDS = /^[ \t]+run[ \t]+(\S+)([\s\S]*)$/;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Where `body` first mentions one of `logins`: not as part of an e-mail address, a path or a longer
 * login, not in `code`, and not on a quoted line (`> @cairn run ...` quotes someone else's request).
 */
function mentionIn(body: string, logins: readonly string[]): { index: number; length: number } | undefined {
  const names = logins.map(escape).join('|');
  const mention = new RegExp(`(?:^|[^A-Za-z0-9_.@/\`-])@(?:${names})(?![A-Za-z0-9_-])`, 'i');
  let offset = 0;
  for (const line of body.split('\n')) {
    const found = /^[ \t]*>/.test(line) ? null : mention.exec(line);
    if (found) return { index: offset + found.index, length: found[0].length };
    offset += line.length + 1;
  }
  return undefined;
}

export function parseCommentCommand(body: string, mentions: readonly string[] = [BOT_MENTION]): CommentCommand {
  const match = COMMAND_LINE.exec(body);
  if (match) {
    const rest = body.slice(match.index + match[0].length - match[1]!.length);
    const words = RUN_WORDS.exec(rest);
    if (!words) return { kind: 'malformed', reason: 'a /cairn command must read `/cairn run <workflow> [args]`' };
    return { kind: 'run', workflow: words[1]!, args: words[2]!.trim() };
  }
  const mention = mentionIn(body, mentions);
  if (!mention) return { kind: 'none' };
  const words = RUN_WORDS.exec(body.slice(mention.index + mention.length));
  if (!words) return { kind: 'malformed', reason: 'a mention that starts a run must read `@cairn run <workflow> [args]`' };
  return { kind: 'run', workflow: words[1]!, args: words[2]!.trim() };
}

/** Whether a comment may mention some login followed by `run`: only then is it worth asking who the token's user is. */
export const mayMentionRun = (body: string): boolean => /@[A-Za-z0-9-]+(\[bot\])?[ \t]+run[ \t]/i.test(body);
