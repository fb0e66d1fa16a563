import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { busyTimeoutMs, openConnection } from '../../src/store/sqlite/connection.js';
import { sourceModule, tsxImport } from '../helpers/built-files.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

/**
 * What the SQLite connection settles that the contract suite cannot reach: an OS crash cannot
 * be staged in a test, so the durability choice is checked where it is made.
 */
describe('a SQLite connection', () => {
  it('syncs the log before a commit becomes visible, so a seq a reader saw survives an OS crash', () => {
    const db = openConnection(home.paths.database);
    home.defer(() => db.close());
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    // 2 = FULL. NORMAL (1) lets an OS crash drop commits that readers already saw, and reuse their seqs.
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('blocks its thread only briefly on a busy database, leaving longer waits to asynchronous retries', () => {
    const db = openConnection(home.paths.database);
    home.defer(() => db.close());
    expect(db.pragma('busy_timeout', { simple: true })).toBe(busyTimeoutMs);
    expect(busyTimeoutMs).toBeLessThanOrEqual(100);
  });

  it('opens a brand-new database from eight processes at once: every one switches to WAL and migrates', async () => {
    const connection = sourceModule('src/store/sqlite/connection.ts');
    const script = `import(${JSON.stringify(connection)}).then(({ openConnection }) => { const db = openConnection(process.argv[1]); console.log(db.pragma('journal_mode', { simple: true }), db.pragma('user_version', { simple: true })); db.close(); })`;
    const outputs = await Promise.all(
      Array.from({ length: 8 }, () =>
        new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
          const child = spawn(process.execPath, [...tsxImport, '-e', script, home.paths.database], { stdio: ['ignore', 'pipe', 'pipe'] });
          let out = '';
          let err = '';
          child.stdout.on('data', (d: Buffer) => (out += d.toString()));
          child.stderr.on('data', (d: Buffer) => (err += d.toString()));
          child.once('close', (code) => resolve({ code, out, err }));
        }),
      ),
    );
    for (const { code, out, err } of outputs) {
      expect(err).toBe('');
      expect(code).toBe(0);
      expect(out).toMatch(/^wal \d+\n$/);
    }
    expect(new Set(outputs.map((o) => o.out)).size).toBe(1);
  });
});
