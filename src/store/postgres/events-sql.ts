import type { NewConversationEvent, NewRunEvent, RunEvent, StreamEvent } from '../schemas/event.js';
import type { EventFilter } from '../events.js';
import { toEvent, toRunEvent } from './rows.js';
import { runTotalsStatements } from './run-totals-sql.js';
import type { Query, ReadAfterCommit } from './session.js';

/** An event inserted in a write that has not committed: its seq is handed out at commit (migration 1). */
export interface PendingEvent<E> {
  /** The row's id, to read its seq once committed. */
  id: number;
  event: E;
}

/** A row `insertLocked` wrote, and the event it was written from. */
export interface WrittenEvent {
  source: NewRunEvent;
  pending: PendingEvent<RunEvent>;
}

/**
 * The columns an event is read from, named: a prepared statement that selected `*` would fail
 * in every running process once a migration added a column (its result type would change).
 */
const EVENT_COLUMNS = 'seq, run_id, conversation_id, event_type, step_name, data, created_at';

/**
 * The read of the seqs the commit gave the rows `idsOf(result)`, to send with that COMMIT
 * (PgSession.writeThenRead): the write's result, and the seqs by row id. The ids are the
 * driver's numbers, checked to be integers before they are written into the SQL.
 */
export function seqsAfterCommit<T>(idsOf: (result: T) => readonly number[]): ReadAfterCommit<T, [T, Map<number, number>]> {
  const listOf = (result: T) => {
    const ids = idsOf(result);
    if (!ids.every((id) => Number.isSafeInteger(id))) throw new Error(`event ids must be integers: ${ids.join(', ')}`);
    return ids;
  };
  return {
    sql: (result) => {
      const ids = listOf(result);
      return ids.length === 0 ? undefined : `SELECT id, seq FROM events WHERE id IN (${ids.join(', ')})`;
    },
    take: (result, rows) => [result, new Map(rows.map((row) => [row.id as number, row.seq as number]))],
  };
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

  /**
   * `append` for a caller that holds the runs' row locks already: every row in one statement
   * (a round trip per event made a fan-out's queue positions cost seconds on a busy line).
   * Rows are inserted in the order given, so their ids (a sequence, drawn row by row) ascend in
   * that order, which maps the rows returned back to the events; an end left out returns none.
   */
  const insertLocked = async (events: readonly NewRunEvent[], now: string): Promise<WrittenEvent[]> => {
    if (events.length === 0) return [];
    const column = <T>(pick: (e: NewRunEvent) => T) => events.map(pick);
    const rows = await q(
      `INSERT INTO events (run_id, conversation_id, event_type, step_name, data, created_at, ends_attempt)
       SELECT run_id, conversation_id, event_type, step_name, data, $6, ends_attempt
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $7::text[])
         AS e(run_id, conversation_id, event_type, step_name, data, ends_attempt)
       ON CONFLICT (ends_attempt) WHERE ends_attempt IS NOT NULL DO NOTHING RETURNING id, ends_attempt`,
      [
        column((e) => e.run_id), column((e) => e.conversation_id), column((e) => e.event_type), column((e) => e.step_name),
        column((e) => JSON.stringify(e.data)), now, column((e) => e.ends_attempt ?? null),
      ],
      'cairn_insert_run_events',
    );
    // The driver hands BIGINT ids over as text: kept as it gives them, ordered by their value.
    const inserted = rows
      .map((row) => ({ id: row.id as number, endsAttempt: (row.ends_attempt as string | null) ?? null }))
      .sort((a, b) => Number(a.id) - Number(b.id));
    const endsWritten = new Set(inserted.flatMap((r) => (r.endsAttempt === null ? [] : [r.endsAttempt])));
    const written: WrittenEvent[] = [];
    const adding: Pick<NewRunEvent, 'run_id' | 'adds_to_totals'>[] = [];
    let next = 0;
    for (const source of events) {
      const { ends_attempt: endsAttempt, adds_to_totals: adds, ...e } = source;
      // Left out: an end of an attempt whose end was there already (or came earlier in this list).
      if (endsAttempt !== undefined && endsAttempt !== null && !endsWritten.delete(endsAttempt)) continue;
      const row = inserted[next++];
      if (row === undefined) break;
      written.push({ source, pending: { id: row.id, event: { ...e, seq: 0, created_at: now } } });
      if (adds !== undefined) adding.push({ run_id: e.run_id, adds_to_totals: adds });
    }
    await totals.add(adding);
    return written;
  };

  return {
    /** Locks the runs' rows (in id order, as append does) and answers their owners. */
    async lockOwners(runIds: readonly string[]): Promise<{ id: string; owner_id: string | null }[]> {
      if (runIds.length === 0) return [];
      const rows = await q('SELECT id, owner_id FROM workflow_runs WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE', [[...runIds]], 'cairn_lock_run_owners');
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
      return (await insertLocked(events, now)).map((w) => w.pending);
    },
    insertLocked,
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
      const rows = await q('SELECT id, seq FROM events WHERE id = ANY($1::bigint[])', [[...ids]], 'cairn_event_seqs');
      return new Map(rows.map((row) => [row.id as number, row.seq as number]));
    },
    async listByRun(runId: string): Promise<RunEvent[]> {
      return (await q('SELECT * FROM events WHERE run_id = $1 AND seq IS NOT NULL ORDER BY seq', [runId])).map(toRunEvent);
    },
    async listAfter(afterSeq: number, limit: number, filter: EventFilter = {}): Promise<StreamEvent[]> {
      const rows = filter.runId
        ? await q(`SELECT ${EVENT_COLUMNS} FROM events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [filter.runId, afterSeq, limit], 'cairn_run_events_after')
        : filter.conversationId
          ? await q(`SELECT ${EVENT_COLUMNS} FROM events WHERE conversation_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [filter.conversationId, afterSeq, limit], 'cairn_conversation_events_after')
          : await q(`SELECT ${EVENT_COLUMNS} FROM events WHERE seq > $1 ORDER BY seq LIMIT $2`, [afterSeq, limit], 'cairn_events_after');
      const events = rows.map(toEvent);
      return filter.runId && filter.conversationId ? events.filter((e) => e.conversation_id === filter.conversationId) : events;
    },
    async lastSeq(): Promise<number> {
      const [row] = await q('SELECT COALESCE(MAX(seq), 0) AS seq FROM events');
      return Number(row!.seq);
    },
  };
}
