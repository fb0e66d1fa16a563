import { CairnError } from '../shared/errors.js';
import type { InstallKey } from '../shared/secrets/install-key.js';
import type { Logger } from '../shared/log.js';
import type { StoredHook } from '../store/schemas/hook.js';
import type { Store } from '../store/store.js';
import type { WorkflowLookup } from '../runs/schedule-run.js';
import { canStartRuns, GitHubRequestError, type GitHubClient, type IssueComment } from './github-client.js';
import { BOT_MENTION, mayMentionRun } from './comment-command.js';
import { decideGitHubEvent, type GitHubStart } from './github-event.js';
import { githubRunOf } from './github-run.js';
import { gitHubClientOfHook } from './hook-client.js';
import { LOGIN_TTL_MS, PERMISSION_TTL_MS, QuietPeriod, REPLY_QUIET_MS, TimedCache } from './permission-cache.js';
import { LAST_COMMENTS } from './run-context.js';
import { denyReplyBody } from './status-comment.js';
import { DEFAULT_RETRY, writeWithRetry, type GitHubStatusFollower, type RetryPolicy } from './status-follower.js';

/**
 * A GitHub hook's delivery, once its signature was checked and its id found new: the event
 * decided (github-event.ts); a bot's or the token's own user's event, or one from a sender
 * without write permission (asked of GitHub, kept a minute), is recorded as ignored with its
 * reason (and one polite reply, when the hook gives one: at most one an hour per person and issue); otherwise the issue's last comments
 * (and a pull request's head branch) are read and the run is admitted with the delivery id. Then,
 * never holding up the answer or the run: the 👀 reaction on the comment, and the status comment.
 */

export interface GitHubDeliveryDeps {
  store: Store;
  lookup: WorkflowLookup;
  clock: () => number;
  installKey: () => InstallKey;
  follower: GitHubStatusFollower;
  log: Pick<Logger, 'info' | 'warn'>;
  retry?: RetryPolicy;
}

export type GitHubDeliveryAnswer = { runId: string | null; duplicate: boolean; ignored?: string };

/** The GitHub answers kept between deliveries (one per API process). */
export class GitHubAnswers {
  readonly permissions: TimedCache<string>;
  readonly logins: TimedCache<string>;
  /** Who was told already, per issue: one reply an hour, so comments in a row are not answered one by one. */
  readonly replied: QuietPeriod;
  constructor(now: () => number) {
    this.permissions = new TimedCache<string>(PERMISSION_TTL_MS, now);
    this.logins = new TimedCache<string>(LOGIN_TTL_MS, now);
    this.replied = new QuietPeriod(REPLY_QUIET_MS, now);
  }
}

const unavailable = (hook: StoredHook, what: string, err: unknown) =>
  new CairnError(
    'GITHUB_UNAVAILABLE',
    `Webhook '${hook.name}' could not ask GitHub ${what} (${err instanceof Error ? err.message : String(err)}); nothing was admitted: redeliver it from the repository's webhook settings`,
  );

export async function takeGitHubDelivery(
  deps: GitHubDeliveryDeps,
  answers: GitHubAnswers,
  hook: StoredHook,
  delivery: { id: string; event: string | undefined; payload: unknown; dashboardUrl: string },
): Promise<GitHubDeliveryAnswer> {
  const settings = hook.github!;
  // Made when first needed: an event ignored without asking GitHub never opens the token.
  let made: GitHubClient | undefined;
  const clientOf = () => (made ??= gitHubClientOfHook(deps.installKey(), { ...hook, github: settings }));
  // Keyed by the sealed token too: a replaced token may be another user's.
  const ownLogin = () =>
    answers.logins.get(`${hook.id}\n${hook.sealed_github_token}`, () => clientOf().authenticatedLogin()).catch((err) => {
      throw unavailable(hook, "who its token's user is", err);
    });
  const decide = (mentions: readonly string[]) =>
    decideGitHubEvent({ event: delivery.event, payload: delivery.payload, settings, hookWorkflow: hook.workflow_name, codebaseId: hook.codebase_id, mentions });
  let decision = decide([BOT_MENTION]);
  // `@<the token's user> run ...` is a command too: GitHub is asked who that is only for a comment that may be one.
  const commentBody = (delivery.payload as { comment?: { body?: unknown } } | null)?.comment?.body;
  if (decision.kind === 'ignore' && delivery.event === 'issue_comment' && typeof commentBody === 'string' && mayMentionRun(commentBody)) {
    decision = decide([BOT_MENTION, await ownLogin()]);
  }
  if (decision.kind === 'unfit') throw new CairnError('HOOK_PAYLOAD_UNFIT', `Webhook '${hook.name}': ${decision.reason}`);

  const ignore = async (reason: string, reply?: { client: GitHubClient; start: GitHubStart }): Promise<GitHubDeliveryAnswer> => {
    const recorded = await deps.store.ignoreHookDelivery({ hookId: hook.id, deliveryId: delivery.id, reason });
    if ('why' in recorded) throw new CairnError('HOOK_NOT_FOUND', `Webhook '${hook.name}' was deleted meanwhile`);
    deps.log.info({ hookId: hook.id, deliveryId: delivery.id, reason, recorded: recorded.recorded }, 'github.delivery_ignored');
    // Only the first recording replies: a redelivery finds the record and says nothing again.
    if (recorded.recorded && reply && answers.replied.firstIn(`${hook.id}\n${reply.start.subject.repository}#${reply.start.subject.number}\n${reply.start.sender.login.toLowerCase()}`)) {
      const { subject, sender } = reply.start;
      void writeWithRetry(() => reply.client.createComment(subject.repository, subject.number, denyReplyBody(sender.login)), deps.retry ?? DEFAULT_RETRY, deps.log, {
        hookId: hook.id, deliveryId: delivery.id, write: 'deny_reply',
      }, deps.follower.closing);
    }
    return recorded.recorded
      ? { runId: null, duplicate: false, ignored: reason }
      : { runId: recorded.delivery.run_id, duplicate: true, ...(recorded.delivery.ignored ? { ignored: recorded.delivery.ignored } : {}) };
  };

  if (decision.kind === 'ignore') return ignore(decision.reason);
  const start = decision;
  const { sender, subject } = start;
  if (sender.isBot) return ignore(`sender ${sender.login} is a bot: bots never start runs`);

  const own = await ownLogin();
  const client = clientOf();
  if (own.toLowerCase() === sender.login.toLowerCase()) return ignore(`sender ${sender.login} is this hook's own GitHub user: it never starts its own runs`);
  const permission = await answers.permissions
    .get(`${hook.id}\n${subject.repository}\n${sender.login.toLowerCase()}`, () => client.permission(subject.repository, sender.login))
    .catch((err) => {
      throw unavailable(hook, `${sender.login}'s permission on ${subject.repository}`, err);
    });
  if (!canStartRuns(permission)) {
    const replies = settings.deny_reply && start.trigger !== 'label';
    return ignore(`sender ${sender.login} has ${permission} permission on ${subject.repository}; starting a run takes write, maintain or admin`, replies ? { client, start } : undefined);
  }

  const comments: IssueComment[] = await client.lastComments(subject.repository, subject.number, subject.commentCount, LAST_COMMENTS).catch((err) => {
    // The comments are context, not a condition: the run starts without them.
    deps.log.warn({ hookId: hook.id, deliveryId: delivery.id, err: (err as Error).message }, 'github.comments_unread');
    return [];
  });
  let headBranch = subject.headBranch;
  if (subject.isPullRequest && headBranch === undefined) {
    headBranch = await client.pullHeadBranch(subject.repository, subject.number).catch((err) => {
      if (err instanceof GitHubRequestError) throw unavailable(hook, `pull request #${subject.number}'s head branch`, err);
      throw err;
    });
  }
  const runUrlOf = (runId: string) => `${(settings.dashboard_url ?? delivery.dashboardUrl).replace(/\/+$/, '')}/runs/${encodeURIComponent(runId)}`;
  const run = await githubRunOf(deps, hook, delivery, start, { comments, headBranch, runUrlOf });
  const admitted = await deps.store.admitHookDelivery({ hookId: hook.id, deliveryId: delivery.id, run });
  if ('why' in admitted) throw new CairnError('HOOK_NOT_FOUND', `Webhook '${hook.name}' was deleted meanwhile`);
  if (!admitted.admitted) return { runId: admitted.delivery.run_id, duplicate: true, ...(admitted.delivery.ignored ? { ignored: admitted.delivery.ignored } : {}) };

  deps.log.info({ hookId: hook.id, deliveryId: delivery.id, runId: run.id, trigger: start.trigger, repository: subject.repository, number: subject.number }, 'github.run_admitted');
  if (start.commentId !== undefined) {
    const commentId = start.commentId;
    void writeWithRetry(() => client.addReaction(subject.repository, commentId, 'eyes'), deps.retry ?? DEFAULT_RETRY, deps.log, { runId: run.id, write: 'reaction' }, deps.follower.closing);
  }
  deps.follower.follow({
    runId: run.id, hookId: hook.id, deliveryId: delivery.id, hookName: hook.name, client, repository: subject.repository, number: subject.number, workflow: run.workflowName, runUrl: runUrlOf(run.id),
  });
  return { runId: run.id, duplicate: false };
}
