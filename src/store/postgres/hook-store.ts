import { CairnError } from '../../shared/errors.js';
import type { DeliveryAnswer, HookStore, IgnoreAnswer } from '../hooks.js';
import { hookStatements } from './hooks-sql.js';
import { runAdmission } from './run-admission.js';
import { concurrencyRefusal } from '../rules/run-concurrency.js';
import type { PgSession } from './session.js';

/**
 * HookStore over the session's pool. A delivery is admitted in one transaction that writes its
 * (hook, delivery id) key first: a second transaction with the same key waits for the first and
 * then finds it taken, so it writes no run and answers the first one's delivery.
 */
export function pgHookStore(session: PgSession): HookStore {
  return {
    createHook: (hook) =>
      session.write('create a webhook', async (q) => {
        const created = await hookStatements(q).insert(hook, session.now());
        if (!created) throw new CairnError('HOOK_EXISTS', `A webhook named '${hook.name}' exists already; pick another name or remove it first`);
        return created;
      }),

    getHook: (name) => session.read('read a webhook', (q) => hookStatements(q).get(name)),

    listHooks: () => session.read('list webhooks', (q) => hookStatements(q).list()),

    deleteHook: (name) => session.write('delete a webhook', (q) => hookStatements(q).remove(name)),

    replaceHookGithubToken: (hookId, sealed) => session.write("replace a GitHub hook's token", (q) => hookStatements(q).replaceToken(hookId, sealed)),

    getHookDelivery: (hookId, deliveryId) => session.read('read a webhook delivery', (q) => hookStatements(q).delivery(hookId, deliveryId)),

    listHookDeliveries: (hookId, { limit, offset }) =>
      session.read('list webhook deliveries', async (q) => {
        const hooks = hookStatements(q);
        return { deliveries: await hooks.deliveries(hookId, limit, offset), total: await hooks.deliveryCount(hookId) };
      }),

    pruneHookDeliveries: (receivedBefore, limit) =>
      session.write('forget old webhook deliveries', (q) => hookStatements(q).pruneOldest(receivedBefore, limit)),

    admitHookDelivery: ({ hookId, deliveryId, run }) =>
      session.write('admit a webhook delivery', async (q): Promise<DeliveryAnswer> => {
        const hooks = hookStatements(q);
        if (!(await hooks.holds(hookId))) return { admitted: false, why: 'not_found' };
        const now = session.now();
        const delivery = await hooks.insertDelivery(hookId, deliveryId, run.id, now);
        if (!delivery) {
          const existing = await hooks.delivery(hookId, deliveryId);
          if (!existing) throw new CairnError('STORE_UNAVAILABLE', `Webhook delivery '${deliveryId}' was taken and then gone; try again`);
          return { admitted: false, delivery: existing };
        }
        // The run as RunStore.createRun makes it, with its events (`workflow_queued` tells the live stream); a refusal of its concurrency policy rolls the delivery back.
        const admitted = await runAdmission(q).admit(run, now);
        if ('refused' in admitted) throw concurrencyRefusal(run, admitted);
        return { admitted: true, delivery, run: admitted.run };
      }),

    claimStatusComment: (claim) => session.write("claim a GitHub run's status comment", (q) => hookStatements(q).claimStatus(claim, session.now())),

    recordStatusComment: (shown) => session.write("record a GitHub run's status comment", (q) => hookStatements(q).recordStatus(shown)),

    ignoreHookDelivery: ({ hookId, deliveryId, reason }) =>
      session.write('record an ignored webhook delivery', async (q): Promise<IgnoreAnswer> => {
        const hooks = hookStatements(q);
        if (!(await hooks.holds(hookId))) return { recorded: false, why: 'not_found' };
        const delivery = await hooks.insertIgnored(hookId, deliveryId, reason, session.now());
        if (delivery) return { recorded: true, delivery };
        const existing = await hooks.delivery(hookId, deliveryId);
        if (!existing) throw new CairnError('STORE_UNAVAILABLE', `Webhook delivery '${deliveryId}' was taken and then gone; try again`);
        return { recorded: false, delivery: existing };
      }),
  };
}
