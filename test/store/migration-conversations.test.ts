import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openConnection } from '../../src/store/sqlite/connection.js';
import { migrations } from '../../src/store/sqlite/migrations.js';

/** Migration 5 rebuilds `jobs` and `events` (run_id becomes optional) keeping rows, ids and counters. */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('migration 5 (conversations)', () => {
  it('keeps jobs and events, and never hands out a seq or job id again', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-migrate-'));
    dirs.push(dir);
    const path = join(dir, 'cairn.sqlite');
    const old = new Database(path);
    for (const m of migrations.filter((m) => m.version <= 4)) old.exec(m.sql);
    old.pragma('user_version = 4');
    const now = '2026-01-01T00:00:00.000Z';
    old.prepare(`INSERT INTO workflow_runs (id, workflow_name, status, conversation_id, definition, created_at, last_activity_at)
      VALUES ('r1', 'w', 'pending', 'c1', '{}', ?, ?)`).run(now, now);
    for (let i = 0; i < 3; i++) {
      old.prepare(`INSERT INTO events (run_id, conversation_id, event_type, data, created_at) VALUES ('r1', 'c1', 'e', '{}', ?)`).run(now);
      old.prepare(`INSERT INTO jobs (kind, run_id, created_at) VALUES ('start_run', 'r1', ?)`).run(now);
    }
    // The newest rows are gone, but their ids were handed out.
    old.exec('DELETE FROM events WHERE seq = 3; DELETE FROM jobs WHERE id = 3;');
    old.close();

    const db = openConnection(path);
    expect(db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(5);
    expect(db.prepare('SELECT seq FROM events ORDER BY seq').all()).toEqual([{ seq: 1 }, { seq: 2 }]);
    expect(db.prepare('SELECT id, run_id FROM jobs ORDER BY id').all()).toEqual([{ id: 1, run_id: 'r1' }, { id: 2, run_id: 'r1' }]);
    const seq = db.prepare(`INSERT INTO events (run_id, conversation_id, event_type, data, created_at) VALUES (NULL, 'c1', 'text', '{}', ?) RETURNING seq`).get(now);
    expect(seq).toEqual({ seq: 4 });
    const job = db.prepare(`INSERT INTO jobs (kind, conversation_id, created_at) VALUES ('chat_turn', 'c1', ?) RETURNING id`).get(now);
    expect(job).toEqual({ id: 4 });
    expect(db.pragma('foreign_key_check')).toEqual([]);
    db.close();
  });
});
