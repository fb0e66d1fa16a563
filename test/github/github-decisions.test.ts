import { describe, expect, it } from 'vitest';
import { parseCommentCommand } from '../../src/github/comment-command.js';
import { decideGitHubEvent } from '../../src/github/github-event.js';
import { cleanText } from '../../src/github/run-context.js';
import { shownStatusOf, statusCommentBody } from '../../src/github/status-comment.js';

/** The pure parts of a GitHub hook: the comment command, the event decision, the status comment's text. */

describe('the /cairn command in a comment', () => {
  it('reads the first /cairn line; the arguments run to the end of the comment, as text', () => {
    expect(parseCommentCommand('/cairn run fix')).toEqual({ kind: 'run', workflow: 'fix', args: '' });
    expect(parseCommentCommand('Hi!\n  /cairn run fix the `crash` $(rm -rf /)\nmore lines\n')).toEqual({
      kind: 'run', workflow: 'fix', args: 'the `crash` $(rm -rf /)\nmore lines',
    });
    expect(parseCommentCommand('/cairn run ../x; y')).toEqual({ kind: 'run', workflow: '../x;', args: 'y' });
    expect(parseCommentCommand('we could /cairn run fix')).toEqual({ kind: 'none' });
    expect(parseCommentCommand('/cairnish run fix')).toEqual({ kind: 'none' });
    expect(parseCommentCommand('/cairn run')).toMatchObject({ kind: 'malformed' });
    expect(parseCommentCommand('/cairn help')).toMatchObject({ kind: 'malformed' });
  });

  it('reads a mention of @cairn (or of a login the caller names) followed by `run`, anywhere in a line', () => {
    expect(parseCommentCommand('> quoted\nHey @cairn run fix the crash\nthanks')).toEqual({ kind: 'run', workflow: 'fix', args: 'the crash\nthanks' });
    expect(parseCommentCommand('@CAIRN run fix')).toEqual({ kind: 'run', workflow: 'fix', args: '' });
    expect(parseCommentCommand('@widget-bot run fix', ['cairn', 'widget-bot'])).toEqual({ kind: 'run', workflow: 'fix', args: '' });
    expect(parseCommentCommand('@widget-bot run fix')).toEqual({ kind: 'none' });
    // Not a mention of the bot: a longer login, an address, a path.
    for (const body of ['@cairnish run fix', '@cairn-bot run fix', 'me@cairn run fix', 'see /@cairn run fix', 'try `@cairn run fix`', '> @cairn run fix\nthis broke']) expect(parseCommentCommand(body), body).toEqual({ kind: 'none' });
    expect(parseCommentCommand('@cairn what do you think?')).toMatchObject({ kind: 'malformed' });
    // A /cairn line wins over a mention.
    expect(parseCommentCommand('@cairn run a\n/cairn run b')).toEqual({ kind: 'run', workflow: 'b', args: '' });
  });
});

describe('what an event decides', () => {
  const settings = { api_url: 'x', workflows: [], labels: ['go'], on_issue_opened: true, deny_reply: true, dashboard_url: null };
  const base = { settings, hookWorkflow: 'triage', codebaseId: null };
  const comment = (extra: Record<string, unknown> = {}) => ({
    action: 'created', issue: { number: 3, title: 't', body: 'b', html_url: 'u', comments: 2 }, comment: { id: 9, body: '/cairn run triage x' },
    repository: { full_name: 'o/r' }, sender: { login: 'a', type: 'User' }, ...extra,
  });

  it('starts on a command, a listed label and (opted in) a new issue', () => {
    expect(decideGitHubEvent({ ...base, event: 'issue_comment', payload: comment() })).toMatchObject({
      kind: 'start', trigger: 'comment', workflow: 'triage', args: 'x', commentId: 9, subject: { repository: 'o/r', number: 3, commentCount: 2, isPullRequest: false },
    });
    const labeled = { action: 'labeled', label: { name: 'go' }, pull_request: { number: 4, head: { ref: 'feat' } }, repository: { full_name: 'o/r' }, sender: { login: 'a' } };
    expect(decideGitHubEvent({ ...base, event: 'pull_request', payload: labeled })).toMatchObject({ kind: 'start', trigger: 'label', subject: { isPullRequest: true, headBranch: 'feat' } });
    const opened = { action: 'opened', issue: { number: 5 }, repository: { full_name: 'o/r' }, sender: { login: 'a' } };
    expect(decideGitHubEvent({ ...base, event: 'issues', payload: opened })).toMatchObject({ kind: 'start', trigger: 'issue_opened' });
  });

  it('ignores another repository than the codebase’s, and refuses a payload that is not GitHub’s', () => {
    expect(decideGitHubEvent({ ...base, codebaseId: 'o/other', event: 'issue_comment', payload: comment() })).toEqual({
      kind: 'ignore', reason: "repository o/r is not the hook's codebase o/other",
    });
    expect(decideGitHubEvent({ ...base, event: undefined, payload: comment() })).toMatchObject({ kind: 'unfit' });
    for (const bad of [{ repository: { full_name: 'o/..' } }, { repository: { full_name: '../r' } }, { sender: { login: 'a b' } }, { issue: { number: -1 } }, { comment: { id: 1 } }]) {
      expect(decideGitHubEvent({ ...base, event: 'issue_comment', payload: comment(bad) }).kind, JSON.stringify(bad)).toBe('unfit');
    }
    expect(decideGitHubEvent({ ...base, event: 'issue_comment', payload: [] }).kind).toBe('unfit');
  });
});

describe('the status comment', () => {
  const view = { runId: '0123456789abcdef', workflow: 'fix', runUrl: 'https://c/runs/0123456789abcdef', costUsd: 0.01234, error: null };

  it('fences a result longer than any run of backticks in it, and says which status it shows', () => {
    const body = statusCommentBody({ ...view, status: 'completed', result: 'a ``` b ```` c' });
    expect(body).toContain('`````text\na ``` b ```` c\n`````');
    expect(body).toContain('Run: [01234567](https://c/runs/0123456789abcdef) · cost: $0.0123');
    expect(shownStatusOf(body)).toBe('completed');
    expect(shownStatusOf(statusCommentBody({ ...view, status: 'paused' }))).toBe('paused');
    expect(shownStatusOf('just a comment')).toBeUndefined();
    expect(statusCommentBody({ ...view, status: 'failed', error: 'exit 3' })).toContain('Error:\n\n```text\nexit 3\n```');
  });
});

describe('text handed to a run', () => {
  it('replaces NUL, cuts long text with a note, and never leaves half a surrogate pair', () => {
    expect(cleanText('a\u0000b', 10)).toBe('a\uFFFDb');
    expect(cleanText('abcdef', 3)).toBe('abc\n[… cut: 3 more characters]');
    expect(cleanText('ab😀cd', 3)).toBe('ab\n[… cut: 4 more characters]');
  });
});
