import type { IssueComment } from './github-client.js';
import type { GitHubStart } from './github-event.js';

/**
 * The issue or pull request a GitHub run is about, as workflow inputs (docs/github.md lists them).
 * A workflow receives those of these names it declares; the rest are left out. Every value is
 * text, never code (`$INPUTS.<name>` in a `bash:` node is a quoted variable), capped in length, and
 * without NUL bytes, which no process argument or environment value can hold.
 */

export const GITHUB_INPUT_NAMES = [
  'github_repository', 'github_number', 'github_kind', 'github_title', 'github_body', 'github_url', 'github_comments',
  'github_head_branch', 'github_author', 'github_trigger', 'github_args',
] as const;

/** How many of the last comments github_comments holds. */
export const LAST_COMMENTS = 5;
const BODY_MAX = 16_000;
const COMMENT_MAX = 4_000;

/** Text made safe to hand to a process: NUL replaced, cut at `max` characters (whole code points) with a note. */
export function cleanText(text: string, max: number): string {
  const clean = text.replace(/\u0000/g, '\uFFFD');
  if (clean.length <= max) return clean;
  // Never half a surrogate pair: the store refuses lone surrogates.
  const cut = /[\uD800-\uDBFF]$/.test(clean.slice(0, max)) ? clean.slice(0, max - 1) : clean.slice(0, max);
  return `${cut}\n[… cut: ${clean.length - cut.length} more characters]`;
}

export function githubInputs(start: GitHubStart, context: { comments: IssueComment[]; headBranch: string | undefined }): Record<(typeof GITHUB_INPUT_NAMES)[number], string> {
  const { subject } = start;
  return {
    github_repository: subject.repository,
    github_number: String(subject.number),
    github_kind: subject.isPullRequest ? 'pull_request' : 'issue',
    github_title: cleanText(subject.title, 1000),
    github_body: cleanText(subject.body, BODY_MAX),
    github_url: subject.url,
    github_comments: context.comments.map((c) => `@${c.author} (${c.created_at}):\n${cleanText(c.body, COMMENT_MAX)}`).join('\n\n---\n\n'),
    github_head_branch: cleanText(context.headBranch ?? '', 300),
    github_author: start.sender.login,
    github_trigger: start.trigger,
    github_args: cleanText(start.args, BODY_MAX),
  };
}
