import type { NewRun } from './runs.js';
import type { Run } from './schemas/run.js';
import type { GitHubTrigger, HookDelivery, HookSignature, StoredHook } from './schemas/hook.js';

export type { GitHubTrigger, Hook, HookDelivery, HookSignature, StoredHook } from './schemas/hook.js';

/**
 * Webhooks and the deliveries they admitted. A delivery id is unique per hook: it is written in
 * the transaction that creates the run it starts, so the same delivery sent again (a retry, a
 * redelivery after a restart, two at once) finds the first one's run instead of starting another.
 * The store sees only the sealed secret; checking signatures is hooks/hook-signature.ts.
 */
export interface HookStore {
  /** HOOK_EXISTS when another hook has its name. */
  createHook(hook: NewHook): Promise<StoredHook>;
  /** By name. */
  getHook(name: string): Promise<StoredHook | undefined>;
  /** By name. */
  listHooks(): Promise<StoredHook[]>;
  /** Replaces a GitHub hook's sealed token (by hook id); the hook as it is now, or undefined when it is gone or not a GitHub hook. */
  replaceHookGithubToken(hookId: string, sealedGithubToken: string): Promise<StoredHook | undefined>;
  /** Deletes a hook and its delivery record (its runs stay). False when there is none. */
  deleteHook(name: string): Promise<boolean>;
  /** The delivery admitted under this id, if any. */
  getHookDelivery(hookId: string, deliveryId: string): Promise<HookDelivery | undefined>;
  /**
   * Admits a delivery once: in one transaction, the delivery row under its (hook, delivery id)
   * key and the run (its row, `start_run` job and conversation). A delivery admitted already
   * (before, or by a request racing this one) answers `admitted: false` with its delivery, and
   * nothing is written. `not_found`: the hook was deleted meanwhile.
   */
  admitHookDelivery(admission: { hookId: string; deliveryId: string; run: NewRun }): Promise<DeliveryAnswer>;
  /**
   * Records a delivery a GitHub hook acknowledged and started nothing for, with the reason, under
   * the same (hook, delivery id) key: the same delivery sent again finds it and does nothing again
   * (no second reply). A delivery recorded already answers `recorded: false` with it.
   */
  ignoreHookDelivery(ignored: { hookId: string; deliveryId: string; reason: string }): Promise<IgnoreAnswer>;
  /**
   * A page of a hook's admitted deliveries, newest first (by when each was received, then by
   * delivery id), and how many it has in all. A hook with none, or no such hook: an empty page.
   */
  listHookDeliveries(hookId: string, page: { limit: number; offset: number }): Promise<HookDeliveryPage>;
  /**
   * Forgets at most `limit` deliveries (of any hook) received before `receivedBefore` (ISO),
   * oldest first, in one transaction, and answers how many went. Their runs stay. A delivery id
   * forgotten is admitted again as new. Callers repeat it until it answers less than `limit`, so a
   * large backlog goes in short transactions that never hold the write lock long.
   */
  pruneHookDeliveries(receivedBefore: string, limit: number): Promise<number>;
  /**
   * Takes the making of a GitHub run's status comment for `claimant` (an API process): taken
   * when the delivery has no comment yet and nobody holds the claim, `claimant` does already, or
   * the holder took it before `staleBefore` (ISO). Otherwise answers what stands in the way: the
   * comment made, or who holds the claim. A delivery that is gone: not claimed, nobody holds it.
   */
  claimStatusComment(claim: { hookId: string; deliveryId: string; claimant: string; staleBefore: string }): Promise<StatusCommentClaim>;
  /** Records a GitHub run's status comment and the run status it now shows (null: not known). */
  recordStatusComment(shown: { hookId: string; deliveryId: string; commentId: number; status: string | null }): Promise<void>;
}

export type StatusCommentClaim = { claimed: true } | { claimed: false; commentId: number | null; claimedBy: string | null };

export interface HookDeliveryPage {
  deliveries: HookDelivery[];
  total: number;
}

export interface NewHook {
  id: string;
  name: string;
  workflowName: string;
  codebaseId: string | null;
  signature: HookSignature;
  inputs: Record<string, string>;
  sealedSecret: string;
  /** A GitHub hook's settings and sealed token; absent (or null) for a plain webhook. */
  github?: GitHubTrigger | null;
  sealedGithubToken?: string | null;
}

export type DeliveryAnswer =
  | { admitted: true; delivery: HookDelivery; run: Run }
  | { admitted: false; delivery: HookDelivery }
  | { admitted: false; why: 'not_found' };

export type IgnoreAnswer =
  | { recorded: true; delivery: HookDelivery }
  | { recorded: false; delivery: HookDelivery }
  | { recorded: false; why: 'not_found' };
