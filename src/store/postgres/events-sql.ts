import type { NewConversationEvent, NewRunEvent, RunEvent, StreamEvent } from '../schemas/event.js';
import type { EventFilter } from '../events.js';
import { toEvent, toRunEvent } from './rows.js';
import { runTotalsStatements } from './run-totals-sql.js';
import type { Query } from './session.js';

/** An event inserted in a write that has not committed: its seq is handed out at commit (migration 1). */
export interface PendingEvent<E> {
  /** The row's id, to read its seq once committed. */
  id: number;
  event: E;
}

/** Statements for the `events` table. Only committed rows have a seq, and only they are read. */
export function eventStatements(q: Query) {
  const totals = runTotalsStatements(q);
  const insert = async (runId: string | null, conversationId: string, type: string, step: string | null, data: unknown, now: string, endsAttempt: string | null) => {
    const [row] = await q(
      `INSERT INTO events (run_id, conversation_id, event_type, step_name, data, created_at, ends_attempt)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (ends_attempt) WHERE ends_attempt IS NOT NULL DO NOTHING RETURNING id`,
      [runId, conversationId, type, step, JSON.stringify(data), now, endsAttempt],
    );
    return row?.id as number | undefined;
  };

  return {
    /** Locks the runs' rows (in id order, as append does) and answers their owners. */
    async lockOwners(runIds: readonly string[]): Promise<{ id: string; owner_id: string | null }[]> {
      if (runIds.length === 0) return [];
      const rows = await q('SELECT id, owner_id FROM workflow_runs WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE', [[...runIds]]);
      return rows.map((row) => ({ id: row.id as string, owner_id: (row.owner_id as string | null) ?? null }));
    },
    /**
     * Appends in order under the runs' row locks (taken in id order: each run's events are written
     * by one transaction at a time); an event ending an attempt that already has its end is left
     * out. What the rows add to their runs' totals is folded in the same transaction.
     */
    async append(events: readonly NewRunEvent[], now: string): Promise<PendingEvent<RunEvent>[]> {
      const runIds = [...new Set(events.map((e) => e.run_id))].sort();
      if (runIds.length > 0) await q('SELECT id FROM workflow_runs WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE', [runIds]);
      const written: PendingEvent<RunEvent>[] = [];
      const adding: Pick<NewRunEvent, 'run_id' | 'adds_to_totals'>[] = [];
      for (const { ends_attempt: endsAttempt, adds_to_totals: adds, ...e } of events) {
        const id = await insert(e.run_id, e.conversation_id, e.event_type, e.step_name, e.data, now, endsAttempt ?? null);
        if (id === undefined) continue;
        written.push({ id, event: { ...e, seq: 0, created_at: now } });
        if (adds !== undefined) adding.push({ run_id: e.run_id, adds_to_totals: adds });
      }
      await totals.add(adding);
      return written;
    },
    async appendConversation(events: readonly NewConversationEvent[], now: string): Promise<PendingEvent<StreamEvent>[]> {
      const written: PendingEvent<StreamEvent>[] = [];
      for (const e of events) {
        const id = (await insert(null, e.conversation_id, e.event_type, null, e.data, now, null))!;
        written.push({ id, event: { ...e, run_id: null, step_name: null, seq: 0, created_at: now } as StreamEvent });
      }
      return written;
    },
    /** The seqs the commit gave the rows `ids`, by id. */
    async seqsOf(ids: readonly number[]): Promise<Map<number, number>> {
      if (ids.length === 0) return new Map();
      const rows = await q('SELECT id, seq FROM events WHERE id = ANY($1::bigint[])', [[...ids]]);
      return new Map(rows.map((row) => [row.id as number, row.seq as number]));
    },
    async listByRun(runId: string): Promise<RunEvent[]> {
      return (await q('SELECT * FROM events WHERE run_id = $1 AND seq IS NOT NULL ORDER BY seq', [runId])).map(toRunEvent);
    },
    async listAfter(afterSeq: number, limit: number, filter: EventFilter = {}): Promise<StreamEvent[]> {
      const rows = filter.runId
        ? await q('SELECT * FROM events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [filter.runId, afterSeq, limit])
        : filter.conversationId
          ? await q('SELECT * FROM events WHERE conversation_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [filter.conversationId, afterSeq, limit])
          : await q('SELECT * FROM events WHERE seq > $1 ORDER BY seq LIMIT $2', [afterSeq, limit]);
      const events = rows.map(toEvent);
      return filter.runId && filter.conversationId ? events.filter((e) => e.conversation_id === filter.conversationId) : events;
    },
    async lastSeq(): Promise<number> {
      const [row] = await q('SELECT COALESCE(MAX(seq), 0) AS seq FROM events');
      return Number(row!.seq);
    },
  };
}
