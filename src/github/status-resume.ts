import type { InstallKey } from '../shared/secrets/install-key.js';
import type { Logger } from '../shared/log.js';
import { runStatusSchema, terminalRunStatuses } from '../store/schemas/run.js';
import type { Store } from '../store/store.js';
import { gitHubClientOfHook } from './hook-client.js';
import { shownStatusOf, statusMarker } from './status-comment.js';
import type { GitHubStatusFollower } from './status-follower.js';

/** How far back a restarted API looks for status comments to bring up to date. */
export const RESUME_DELIVERIES_PER_HOOK = 50;
export const RESUME_WITHIN_MS = 7 * 24 * 3600_000;
const COMMENT_PAGES = 10;

/**
 * After the API process starts: the status comments of GitHub hooks' recent runs that the last
 * process did not finish. For each such run (the newest deliveries of each GitHub hook, of the
 * last week): one whose delivery records a comment that shows the run's end is left alone without
 * a call to GitHub; one with a recorded comment is followed (edited when behind); one with none
 * recorded is looked for on the issue by its marker (its maker may have stopped before recording
 * it), and a run with none gets one. A failure (GitHub down, an install key that changed) is logged and skips
 * that hook or run: it never stops the API.
 */
export async function resumeStatusComments(deps: {
  store: Store;
  installKey: () => InstallKey;
  follower: GitHubStatusFollower;
  log: Pick<Logger, 'info' | 'warn'>;
  now: () => number;
}): Promise<number> {
  let resumed = 0;
  for (const hook of await deps.store.listHooks()) {
    if (!hook.github || !hook.sealed_github_token) continue;
    let client;
    try {
      client = gitHubClientOfHook(deps.installKey(), { ...hook, github: hook.github });
    } catch (err) {
      deps.log.warn({ hook: hook.name, err: (err as Error).message }, 'github.resume_skipped');
      continue;
    }
    const since = deps.now() - RESUME_WITHIN_MS;
    const { deliveries } = await deps.store.listHookDeliveries(hook.id, { limit: RESUME_DELIVERIES_PER_HOOK, offset: 0 });
    for (const delivery of deliveries) {
      if (!delivery.run_id || Date.parse(delivery.received_at) < since) continue;
      const run = await deps.store.getRun(delivery.run_id);
      const github = run?.metadata.github;
      if (!run || !github) continue;
      const ended = terminalRunStatuses.includes(run.status);
      // The record says the comment shows the run's end: nothing to ask GitHub.
      if (ended && delivery.status_comment_id !== null && delivery.status_shown === run.status) continue;
      const followed = {
        runId: run.id, hookId: hook.id, deliveryId: delivery.delivery_id, hookName: hook.name, client,
        repository: github.repository, number: github.number, workflow: run.workflow_name, runUrl: github.run_url,
      };
      try {
        if (delivery.status_comment_id !== null) {
          deps.follower.follow(followed, { commentId: delivery.status_comment_id, shownStatus: runStatusSchema.safeParse(delivery.status_shown).data });
          resumed++;
          continue;
        }
        // No comment recorded: none made yet, or its maker stopped between making and recording
        // it (then its marker finds it).
        const found = await client.findComment(github.repository, github.number, statusMarker(run.id), COMMENT_PAGES);
        const shownStatus = found ? shownStatusOf(found.body) : undefined;
        if (found) await deps.store.recordStatusComment({ hookId: hook.id, deliveryId: delivery.delivery_id, commentId: found.id, status: shownStatus ?? null });
        if (shownStatus === run.status && ended) continue;
        deps.follower.follow(followed, found ? { commentId: found.id, shownStatus } : undefined);
        resumed++;
      } catch (err) {
        deps.log.warn({ hook: hook.name, runId: run.id, err: (err as Error).message }, 'github.resume_failed');
      }
    }
  }
  if (resumed > 0) deps.log.info({ resumed }, 'github.status_resumed');
  return resumed;
}
