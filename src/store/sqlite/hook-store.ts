import { CairnError } from '../../shared/errors.js';
import type { DeliveryAnswer, HookStore } from '../hooks.js';
import { conversationStatements } from './conversations-sql.js';
import { eventStatements } from './events-sql.js';
import { hookStatements } from './hooks-sql.js';
import { jobStatements } from './jobs-sql.js';
import { runStatements } from './runs-sql.js';
import type { SqliteSession } from './session.js';

/**
 * HookStore over the session's connection. A delivery is admitted in one BEGIN IMMEDIATE
 * transaction: no other writer comes between looking its id up and writing it with its run.
 */
export function sqliteHookStore(session: SqliteSession): HookStore {
  const hooks = hookStatements(session.db);
  const runs = runStatements(session.db);
  const jobs = jobStatements(session.db);
  const conversations = conversationStatements(session.db);
  const events = eventStatements(session.db);

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

    getHookDelivery: (hookId, deliveryId) => session.read('read a webhook delivery', () => hooks.delivery(hookId, deliveryId)),

    listHookDeliveries: (hookId, { limit, offset }) =>
      session.read('list webhook deliveries', () => ({ deliveries: hooks.deliveries(hookId, limit, offset), total: hooks.deliveryCount(hookId) })),

    admitHookDelivery: ({ hookId, deliveryId, run }) =>
      session.write('admit a webhook delivery', (): DeliveryAnswer => {
        if (!hooks.exists(hookId)) return { admitted: false, why: 'not_found' };
        const existing = hooks.delivery(hookId, deliveryId);
        if (existing) return { admitted: false, delivery: existing };
        const now = session.now();
        // The run row, its `start_run` job, its conversation and its events (`workflow_queued`, which
        // tells the live stream a run was queued), as RunStore.createRun writes them.
        if (run.conversation) conversations.insert(run.conversation, now);
        const created = runs.insert(run, now);
        jobs.insert('start_run', run.id, {}, now);
        if (run.events?.length) events.append(run.events, now);
        return { admitted: true, delivery: hooks.insertDelivery(hookId, deliveryId, created.id, now), run: created };
      }),
  };
}
