import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../shared/log.js';
import { terminalRunStatuses, type RunStatus } from '../store/schemas/run.js';
import type { Store } from '../store/store.js';
import { childRunOutput } from '../runs/child-output.js';
import { GitHubRequestError, type GitHubClient } from './github-client.js';
import { statusCommentBody } from './status-comment.js';

/**
 * One status comment per GitHub run, kept as the run moves: created when the run is admitted,
 * edited in place (PATCH) each time its status changes (queued, running, paused, and its end with
 * the result or the error and the cost). Woken by the store's change notification, never a poll;
 * one write at a time per run, and only on a change of status, so a busy run costs GitHub a few
 * requests in all. A write GitHub refuses is logged and never touches the run; one that may work
 * later (network, 429, 5xx) is tried again after a growing wait.
 *
 * The comment's id and the status it shows are recorded with the run's delivery, so a restarted
 * API edits it without looking for it, and leaves alone one that shows its run's end already.
 * Only the API process that claims a run's comment makes it (several API processes on
 * PostgreSQL each bring their runs up to date when they start): another one waits, and takes the
 * claim over when its holder has not made the comment within CLAIM_STALE_MS (it died).
 */

/** How long a claim to make a status comment holds against other API processes: the making's retries take at most about 30 s. */
export const CLAIM_STALE_MS = 60_000;

export interface FollowedRun {
  runId: string;
  /** The delivery that started the run: its record keeps the comment's id and what it shows. */
  hookId: string;
  deliveryId: string;
  hookName: string;
  client: GitHubClient;
  repository: string;
  number: number;
  workflow: string;
  runUrl: string;
}

interface Followed {
  run: FollowedRun;
  commentId: number | undefined;
  postedStatus: RunStatus | undefined;
  syncing: boolean;
  again: boolean;
  /** Another API process holds the claim to make the comment: look again when it would be stale. */
  waiting?: NodeJS.Timeout;
}

export interface RetryPolicy {
  tries: number;
  firstDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { tries: 4, firstDelayMs: 1000 };

/**
 * Calls `write` until it works, it fails for good, or `tries` are spent; the waits double, and
 * `stop` (the server closing) ends a wait and the tries at once. Answers the value, or undefined after logging.
 */
export async function writeWithRetry<T>(
  write: () => Promise<T>,
  policy: RetryPolicy,
  log: Pick<Logger, 'info' | 'warn'>,
  what: Record<string, unknown>,
  stop?: AbortSignal,
): Promise<T | undefined> {
  let delay = policy.firstDelayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      const retryable = err instanceof GitHubRequestError && err.retryable;
      log.warn({ ...what, attempt, retryable, err: (err as Error).message }, 'github.write_failed');
      if (!retryable || attempt >= policy.tries || stop?.aborted) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        timer.unref();
        stop?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      if (stop?.aborted) return undefined;
      delay *= 2;
    }
  }
}

export class GitHubStatusFollower {
  private readonly followed = new Map<string, Followed>();
  private readonly inFlight = new Set<Promise<void>>();
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  private readonly stop = new AbortController();
  private readonly claimant: string;

  constructor(
    private readonly deps: {
      store: Pick<Store, 'getRun' | 'onChange' | 'getRunDefinition' | 'listRunEvents' | 'claimStatusComment' | 'recordStatusComment'>;
      log: Pick<Logger, 'info' | 'warn'>;
      retry?: RetryPolicy;
      now?: () => number;
      /** How long another process's claim holds (CLAIM_STALE_MS). */
      claimStaleMs?: number;
    },
  ) {
    // One per API process (and per server in a test's process): who holds a claim.
    this.claimant = `api@${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  }

  /** Aborted when the server closes: other writes to GitHub (a reaction, a reply) stop retrying then too. */
  get closing(): AbortSignal {
    return this.stop.signal;
  }

  /** Starts keeping the run's status comment: creating it now, or (`found`, after a restart) editing the one it has. */
  follow(run: FollowedRun, found?: { commentId: number; shownStatus: RunStatus | undefined }): void {
    if (this.closed || this.followed.has(run.runId)) return;
    this.followed.set(run.runId, { run, commentId: found?.commentId, postedStatus: found?.shownStatus, syncing: false, again: false });
    this.unsubscribe ??= this.deps.store.onChange(() => {
      for (const id of this.followed.keys()) this.sync(id);
    });
    this.sync(run.runId);
  }

  /** Stops listening; waits for the writes under way (their retries end early). */
  async close(): Promise<void> {
    this.closed = true;
    this.stop.abort();
    for (const entry of this.followed.values()) clearTimeout(entry.waiting);
    this.unsubscribe?.();
    await Promise.allSettled([...this.inFlight]);
  }

  private sync(runId: string): void {
    const entry = this.followed.get(runId);
    if (!entry || this.closed) return;
    if (entry.syncing) return void (entry.again = true);
    entry.syncing = true;
    const work = (async () => {
      try {
        do {
          entry.again = false;
          await this.syncOnce(entry);
        } while (entry.again && !this.closed && this.followed.has(runId));
      } catch (err) {
        this.deps.log.warn({ runId, err: (err as Error).message }, 'github.status_sync_failed');
      } finally {
        entry.syncing = false;
      }
    })();
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private async syncOnce(entry: Followed): Promise<void> {
    const { run } = entry;
    if (entry.waiting) return; // for another process's claim: not on every change of the store
    const current = await this.deps.store.getRun(run.runId);
    if (!current) return void this.followed.delete(run.runId);
    if (current.status === entry.postedStatus) return;
    const ended = terminalRunStatuses.includes(current.status);
    const cost = current.metadata.total_cost_usd;
    const body = statusCommentBody({
      runId: run.runId,
      workflow: run.workflow,
      runUrl: run.runUrl,
      status: current.status,
      costUsd: typeof cost === 'number' ? cost : undefined,
      error: current.error,
      result: current.status === 'completed' ? await childRunOutput(this.deps.store, run.runId).catch(() => '') : undefined,
    });
    const what = { runId: run.runId, hook: run.hookName, repository: run.repository, number: run.number, status: current.status };
    const policy = this.deps.retry ?? DEFAULT_RETRY;
    const stopped = this.stop.signal;
    if (entry.commentId === undefined && !(await this.mayMake(entry))) return;
    let posted: boolean;
    if (entry.commentId === undefined) {
      const made = await writeWithRetry(() => run.client.createComment(run.repository, run.number, body), policy, this.deps.log, { ...what, write: 'status_comment_create' }, stopped);
      if (made) entry.commentId = made.id;
      posted = made !== undefined;
    } else {
      const commentId = entry.commentId;
      posted = (await writeWithRetry(async () => (await run.client.updateComment(run.repository, commentId, body), true), policy, this.deps.log, { ...what, write: 'status_comment_update' }, stopped)) === true;
    }
    // A status GitHub would not take is given up (logged above): the next status tries again.
    entry.postedStatus = current.status;
    if (posted) {
      this.deps.log.info(what, 'github.status_posted');
      await this.deps.store.recordStatusComment({ hookId: run.hookId, deliveryId: run.deliveryId, commentId: entry.commentId!, status: current.status });
    }
    if (ended) this.followed.delete(run.runId);
  }

  /**
   * Whether this process makes the run's comment: it claims it, or finds it made by another
   * process meanwhile (then edits that one). While another live process holds the claim, it
   * looks again once that claim would be stale.
   */
  private async mayMake(entry: Followed): Promise<boolean> {
    const { run } = entry;
    const staleMs = this.deps.claimStaleMs ?? CLAIM_STALE_MS;
    const now = (this.deps.now ?? Date.now)();
    const claim = await this.deps.store.claimStatusComment({
      hookId: run.hookId, deliveryId: run.deliveryId, claimant: this.claimant, staleBefore: new Date(now - staleMs).toISOString(),
    });
    // A delivery forgotten by the retention (an old run): nobody else keeps its comment either.
    if (claim.claimed || (claim.claimedBy === null && claim.commentId === null)) return true;
    if (claim.commentId !== null) {
      entry.commentId = claim.commentId;
      return true;
    }
    this.deps.log.info({ runId: run.runId, claimedBy: claim.claimedBy }, 'github.status_claimed_elsewhere');
    clearTimeout(entry.waiting);
    entry.waiting = setTimeout(() => {
      entry.waiting = undefined;
      this.sync(run.runId);
    }, staleMs);
    entry.waiting.unref();
    return false;
  }
}
