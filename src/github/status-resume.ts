import type { InstallKey } from '../shared/secrets/install-key.js';
import type { Logger } from '../shared/log.js';
import { terminalRunStatuses } from '../store/schemas/run.js';
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
 * last week) its comment is found on the issue by its marker; one that shows the run's status
 * already is left alone (and followed on while the run goes on), one behind is edited, and a run
 * with none gets one. A failure (GitHub down, an install key that changed) is logged and skips
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
      try {
        const found = await client.findComment(github.repository, github.number, statusMarker(run.id), COMMENT_PAGES);
        const shownStatus = found ? shownStatusOf(found.body) : undefined;
        if (shownStatus === run.status && terminalRunStatuses.includes(run.status)) continue;
        deps.follower.follow(
          { runId: run.id, hookName: hook.name, client, repository: github.repository, number: github.number, workflow: run.workflow_name, runUrl: github.run_url },
          found ? { commentId: found.id, shownStatus } : undefined,
        );
        resumed++;
      } catch (err) {
        deps.log.warn({ hook: hook.name, runId: run.id, err: (err as Error).message }, 'github.resume_failed');
      }
    }
  }
  if (resumed > 0) deps.log.info({ resumed }, 'github.status_resumed');
  return resumed;
}
