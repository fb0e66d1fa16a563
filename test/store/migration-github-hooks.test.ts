import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { openConnection } from '../../src/store/sqlite/connection.js';
import { migrations } from '../../src/store/sqlite/migrations.js';

/** Migration 21 rebuilds `hook_deliveries` (run_id becomes optional, beside `ignored`) keeping its rows and their hook's cascade. */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it('keeps the deliveries of a database made before GitHub hooks, and a delivery is a run or a reason, never both or neither', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-migrate-'));
  dirs.push(dir);
  const path = join(dir, 'cairn.sqlite');
  const old = new Database(path);
  for (const m of migrations.filter((m) => m.version <= 20)) old.exec(m.sql);
  old.pragma('user_version = 20');
  const now = '2026-01-01T00:00:00.000Z';
  old.prepare(`INSERT INTO hooks (id, name, workflow_name, signature, sealed_secret, created_at) VALUES ('h1', 'ci', 'w', 'generic', 's', ?)`).run(now);
  old.prepare(`INSERT INTO hook_deliveries (hook_id, delivery_id, run_id, received_at) VALUES ('h1', 'd1', 'r1', ?)`).run(now);
  old.close();

  const db = openConnection(path);
  expect(db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(21);
  expect(db.prepare('SELECT * FROM hook_deliveries').all()).toEqual([
    // Migration 23's columns (a GitHub run's status comment) come empty.
    { hook_id: 'h1', delivery_id: 'd1', run_id: 'r1', ignored: null, received_at: now, status_comment_id: null, status_shown: null, status_claimed_by: null, status_claimed_at: null },
  ]);
  expect(db.prepare('SELECT github, sealed_github_token FROM hooks').all()).toEqual([{ github: null, sealed_github_token: null }]);
  const insert = db.prepare('INSERT INTO hook_deliveries (hook_id, delivery_id, run_id, ignored, received_at) VALUES (?, ?, ?, ?, ?)');
  insert.run('h1', 'd2', null, 'a ping', now);
  expect(() => insert.run('h1', 'd3', null, null, now)).toThrow(/CHECK/);
  expect(() => insert.run('h1', 'd4', 'r2', 'both', now)).toThrow(/CHECK/);
  expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'hook_deliveries' AND name = 'hook_deliveries_received'").all()).toHaveLength(1);
  db.prepare("DELETE FROM hooks WHERE id = 'h1'").run();
  expect(db.prepare('SELECT count(*) AS n FROM hook_deliveries').get()).toEqual({ n: 0 });
  db.close();
});
