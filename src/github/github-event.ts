import type { GitHubTrigger } from '../store/schemas/hook.js';
import { parseCommentCommand } from './comment-command.js';

/**
 * What a GitHub hook does with one event (the `X-GitHub-Event` header and its JSON payload),
 * decided without any request to GitHub: start a run (who asked, on which issue or pull request,
 * which workflow with which arguments), or acknowledge it and start nothing, for a reason the
 * delivery record keeps. The sender's permission and the token's own login are checked after
 * this (github-admission.ts). Pure.
 */

export interface GitHubSubject {
  repository: string;
  number: number;
  title: string;
  body: string;
  url: string;
  isPullRequest: boolean;
  /** How many comments it has (the payload's count), to read the last few. */
  commentCount: number;
  /** A pull request's head branch when the payload holds it (pull_request events). */
  headBranch?: string;
}

export type GitHubStart = {
  kind: 'start';
  workflow: string;
  args: string;
  trigger: 'comment' | 'label' | 'issue_opened';
  sender: { login: string; isBot: boolean };
  subject: GitHubSubject;
  /** The triggering comment (its 👀 reaction). */
  commentId?: number;
  /** The label added (label triggers). */
  label?: string;
};

export type GitHubDecision = GitHubStart | { kind: 'ignore'; reason: string } | { kind: 'unfit'; reason: string };

/** owner/name; neither part is `.` or `..`, so it is never a path step in an API URL. */
const REPOSITORY = /^(?!\.\.?\/)[A-Za-z0-9_.-]{1,100}\/(?!\.\.?$)[A-Za-z0-9_.-]{1,100}$/;
/** A GitHub login: letters, digits and hyphens; an app's bot user ends in `[bot]`. */
const LOGIN = /^[A-Za-z0-9-]{1,39}(\[bot\])?$/;
/** A name quoted in a reason: at most this many characters. */
const QUOTED = 100;
const quote = (text: string) => JSON.stringify(text.length > QUOTED ? `${text.slice(0, QUOTED)}…` : text);

const record = (value: unknown): Record<string, any> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, any>) : undefined;

export function decideGitHubEvent(input: {
  event: string | undefined;
  payload: unknown;
  settings: GitHubTrigger;
  /** The hook's own workflow: a label or an opened issue starts it; `/cairn run` may name it. */
  hookWorkflow: string;
  /** The hook's codebase id; when it names a GitHub repository (owner/name), other repositories' events are ignored. */
  codebaseId: string | null;
  /** The logins a mention may name (`@cairn run ...`); default `cairn` alone. The caller adds the token's own user. */
  mentions?: readonly string[];
}): GitHubDecision {
  const { event, settings } = input;
  const payload = record(input.payload);
  if (!event) return { kind: 'unfit', reason: 'a GitHub delivery names its event in the X-GitHub-Event header, and this one has none' };
  if (event === 'ping') return { kind: 'ignore', reason: 'ping: GitHub checking the hook' };
  if (!['issue_comment', 'issues', 'pull_request'].includes(event)) return { kind: 'ignore', reason: `event '${event}' starts nothing` };
  const action = typeof payload?.action === 'string' ? payload.action : '';

  const repository = record(payload?.repository)?.full_name;
  const senderRecord = record(payload?.sender);
  const item = record(event === 'pull_request' ? payload?.pull_request : payload?.issue);
  if (typeof repository !== 'string' || !REPOSITORY.test(repository)) return { kind: 'unfit', reason: 'repository.full_name is missing or not owner/name' };
  if (!senderRecord || typeof senderRecord.login !== 'string' || !LOGIN.test(senderRecord.login)) return { kind: 'unfit', reason: 'sender.login is missing or not a GitHub login' };
  if (!item || !Number.isSafeInteger(item.number) || item.number <= 0) return { kind: 'unfit', reason: `the ${event === 'pull_request' ? 'pull_request' : 'issue'}'s number is missing` };
  if (input.codebaseId && REPOSITORY.test(input.codebaseId) && input.codebaseId.toLowerCase() !== repository.toLowerCase()) {
    return { kind: 'ignore', reason: `repository ${repository} is not the hook's codebase ${input.codebaseId}` };
  }

  const sender = { login: senderRecord.login as string, isBot: senderRecord.type === 'Bot' };
  const subject: GitHubSubject = {
    repository,
    number: item.number as number,
    title: typeof item.title === 'string' ? item.title : '',
    body: typeof item.body === 'string' ? item.body : '',
    url: typeof item.html_url === 'string' ? item.html_url : '',
    isPullRequest: event === 'pull_request' || record(item.pull_request) !== undefined,
    commentCount: Number.isSafeInteger(item.comments) ? (item.comments as number) : 0,
  };
  const head = record(item.head)?.ref;
  if (typeof head === 'string') subject.headBranch = head;
  const base = { sender, subject, args: '' };

  if (event === 'issue_comment') {
    if (action !== 'created') return { kind: 'ignore', reason: `issue_comment ${action || 'without an action'}: only a new comment starts a run` };
    const comment = record(payload?.comment);
    if (!comment || !Number.isSafeInteger(comment.id) || typeof comment.body !== 'string') return { kind: 'unfit', reason: 'comment.id or comment.body is missing' };
    const command = parseCommentCommand(comment.body, input.mentions);
    if (command.kind === 'none') return { kind: 'ignore', reason: 'the comment holds no /cairn command and no @cairn mention' };
    if (command.kind === 'malformed') return { kind: 'ignore', reason: command.reason };
    const allowed = [input.hookWorkflow, ...settings.workflows.filter((w) => w !== input.hookWorkflow)];
    if (!allowed.includes(command.workflow)) {
      return { kind: 'ignore', reason: `workflow ${quote(command.workflow)} is not one this hook starts (it starts: ${allowed.join(', ')})` };
    }
    return { kind: 'start', trigger: 'comment', workflow: command.workflow, ...base, args: command.args, commentId: comment.id as number };
  }
  if (action === 'labeled') {
    const label = record(payload?.label)?.name;
    if (typeof label !== 'string') return { kind: 'unfit', reason: 'label.name is missing' };
    if (!settings.labels.includes(label)) return { kind: 'ignore', reason: `label ${quote(label)} is not one that starts a run (${settings.labels.join(', ') || 'none is configured'})` };
    return { kind: 'start', trigger: 'label', workflow: input.hookWorkflow, ...base, label };
  }
  if (event === 'issues' && action === 'opened') {
    if (!settings.on_issue_opened) return { kind: 'ignore', reason: 'a new issue starts no run (on_issue_opened is off)' };
    return { kind: 'start', trigger: 'issue_opened', workflow: input.hookWorkflow, ...base };
  }
  return { kind: 'ignore', reason: `${event} ${action || 'without an action'} starts nothing` };
}
