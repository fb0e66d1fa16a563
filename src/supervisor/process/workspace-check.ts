import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Logger } from '../../shared/log.js';
import type { RunStatus } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';

/** The statuses of runs that a supervisor may still have to work on. */
const openStatuses: readonly RunStatus[] = ['pending', 'running', 'paused'];

/** What every host's supervisor must see, said in every message about a checkout it cannot see. */
export const SHARED_WORKSPACE_ADVICE =
  'Every supervisor on a shared database must see each codebase\'s checkout and $CAIRN_HOME/workspaces at the same paths ' +
  '(shared storage mounted at the same place on every host): mount it on this host, or run no supervisor here ' +
  '(docs/postgres.md, "Several supervisors").';

/** A codebase whose checkout this host cannot see, with how many open runs work in it. */
export interface UnseenCheckout {
  codebaseId: string;
  path: string;
  openRuns: number;
}

/** The registered codebases whose checkout (`default_cwd`) does not exist on this host. */
export async function unseenCheckouts(store: Store): Promise<UnseenCheckout[]> {
  const unseen: UnseenCheckout[] = [];
  for (const codebase of await store.listCodebases()) {
    if (existsSync(codebase.default_cwd)) continue;
    let openRuns = 0;
    for (const status of openStatuses) openRuns += (await store.listRuns({ codebaseId: codebase.id, status, limit: 1000 })).length;
    unseen.push({ codebaseId: codebase.id, path: codebase.default_cwd, openRuns });
  }
  return unseen;
}

/**
 * Checked when a supervisor on a shared (PostgreSQL) database starts: a checkout that open runs
 * work in and that this host cannot see stops the start with an error naming it, rather than
 * failing that run's nodes one by one here; one that no open run needs is only logged.
 */
export async function checkWorkspacesVisible(store: Store, log: Logger): Promise<void> {
  const unseen = await unseenCheckouts(store);
  for (const u of unseen.filter((x) => x.openRuns === 0)) {
    log.warn({ codebaseId: u.codebaseId, path: u.path, advice: SHARED_WORKSPACE_ADVICE }, 'supervisor.checkout_not_visible');
  }
  const needed = unseen.filter((u) => u.openRuns > 0);
  if (needed.length === 0) return;
  const list = needed.map((u) => `${u.codebaseId} at ${u.path} (${u.openRuns} open run${u.openRuns === 1 ? '' : 's'})`).join('; ');
  throw new Error(`This supervisor (host ${hostname()}) cannot see the checkout of ${list}. ${SHARED_WORKSPACE_ADVICE}`);
}
