import { CairnError } from '../../shared/errors.js';
import type { DeliveryAnswer, HookStore, IgnoreAnswer } from '../hooks.js';
import { hookStatements } from './hooks-sql.js';
import { runAdmission } from './run-admission.js';
import { concurrencyRefusal } from '../rules/run-concurrency.js';
import type { SqliteSession } from './session.js';

/**
 * HookStore over the session's connection. A delivery is admitted in one BEGIN IMMEDIATE
 * transaction: no other writer comes between looking its id up and writing it with its run.
 */
export function sqliteHookStore(session: SqliteSession): HookStore {
  const hooks = hookStatements(session.db);
  const runs = runAdmission(session.db);

  return {
    createHook: (hook) =>
      session.write('create a webhook', () => {
        const created = hooks.insert(hook, session.now());
        if (!created) throw new CairnError('HOOK_EXISTS', `A webhook named '${hook.name}' exists already; pick another name or remove it first`);
        return created;
      }),

    getHook: (name) => session.read('read a webhook', () => hooks.get(name)),

    listHooks: () => session.read('list webhooks', () => hooks.list()),

    deleteHook: (name) => session.write('delete a webhook', () => hooks.remove(name)),

    replaceHookGithubToken: (hookId, sealed) => session.write("replace a GitHub hook's token", () => hooks.replaceToken(hookId, sealed)),

    getHookDelivery: (hookId, deliveryId) => session.read('read a webhook delivery', () => hooks.delivery(hookId, deliveryId)),

    listHookDeliveries: (hookId, { limit, offset }) =>
      session.read('list webhook deliveries', () => ({ deliveries: hooks.deliveries(hookId, limit, offset), total: hooks.deliveryCount(hookId) })),

    pruneHookDeliveries: (receivedBefore, limit) =>
      session.write('forget old webhook deliveries', () => hooks.pruneOldest(receivedBefore, limit)),

    admitHookDelivery: ({ hookId, deliveryId, run }) =>
      session.write('admit a webhook delivery', (): DeliveryAnswer => {
        if (!hooks.exists(hookId)) return { admitted: false, why: 'not_found' };
        const existing = hooks.delivery(hookId, deliveryId);
        if (existing) return { admitted: false, delivery: existing };
        const now = session.now();
        // The run as RunStore.createRun makes it, with its events (`workflow_queued` tells the live stream); a refusal of its concurrency policy admits nothing.
        const admitted = runs.admit(run, now);
        if ('refused' in admitted) throw concurrencyRefusal(run, admitted);
        return { admitted: true, delivery: hooks.insertDelivery(hookId, deliveryId, admitted.run.id, now), run: admitted.run };
      }),

    claimStatusComment: (claim) => session.write("claim a GitHub run's status comment", () => hooks.claimStatus(claim, session.now())),

    recordStatusComment: (shown) => session.write("record a GitHub run's status comment", () => hooks.recordStatus(shown)),

    ignoreHookDelivery: ({ hookId, deliveryId, reason }) =>
      session.write('record an ignored webhook delivery', (): IgnoreAnswer => {
        if (!hooks.exists(hookId)) return { recorded: false, why: 'not_found' };
        const existing = hooks.delivery(hookId, deliveryId);
        if (existing) return { recorded: false, delivery: existing };
        return { recorded: true, delivery: hooks.insertIgnored(hookId, deliveryId, reason, session.now()) };
      }),
  };
}
