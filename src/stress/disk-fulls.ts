import type { SeededRandom } from './seeded-random.js';
import { fillDisk, freeDisk } from './small-disk.js';
import type { StressClient } from './stress-client.js';

/**
 * One full-disk episode of `cairn stress --disk-full`, at a seeded moment: the scratch home's
 * small disk filled to its last byte (the database's WAL truncated first, so the next commit must
 * grow a file, and the server's log topped up), held while the runs press against it, then freed.
 * The server must say so while it lasts (`/health/db` answers 503 "Disk full…") and take writes
 * again once there is room; the runs must wait, never fail.
 */

/** Where the fill lands: the small disk, the database on it and the server's log. */
export interface StressDisk {
  dir: string;
  database: string;
  log: string;
}

export interface DiskFullRecord {
  index: number;
  /** When the disk was full, ms since the epoch. */
  atMs: number;
  walTruncated: boolean;
  /** How long after the fill `/health/db` said "Disk full"; null if it never did. */
  toldFullMs: number | null;
  /** How long the disk stayed full. */
  heldMs: number;
  /** How long after the space came back `/health/db` answered 200; null if it never did. */
  recoveredMs: number | null;
  /** What the server said while the disk was full. */
  said: string | null;
}

const START_WITHIN_MS = 1_500;
const TOLD_WITHIN_MS = 15_000;
const RECOVERED_WITHIN_MS = 30_000;
const POLL_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `/health/db` until `want` holds of its answer, for at most `withinMs`; the time it took and the answer, or null. */
async function pollDatabase(client: StressClient, want: (a: { ok: boolean; error: string | null }) => boolean, withinMs: number) {
  const began = Date.now();
  for (;;) {
    const answer = await client.databaseHealth();
    if (want(answer)) return { ms: Date.now() - began, answer };
    if (Date.now() - began > withinMs) return null;
    await sleep(POLL_MS);
  }
}

/** Fills the disk at a seeded moment, holds it full a seeded 1–3 s past the server's notice, frees it and waits for writes to work again. */
export async function diskFullOnce(opts: { index: number; disk: StressDisk; client: StressClient; random: SeededRandom }): Promise<DiskFullRecord> {
  const { disk, client, random } = opts;
  await sleep(random.int(0, START_WITHIN_MS));
  const holdMs = random.int(1_000, 3_000);
  const { walTruncated } = await fillDisk(disk.dir, { database: disk.database, topUp: [disk.log] });
  const atMs = Date.now();
  let freed = false;
  try {
    const told = await pollDatabase(client, (a) => !a.ok && /disk full/i.test(a.error ?? ''), TOLD_WITHIN_MS);
    await sleep(holdMs);
    const heldMs = Date.now() - atMs;
    await freeDisk(disk.dir);
    freed = true;
    const back = await pollDatabase(client, (a) => a.ok, RECOVERED_WITHIN_MS);
    return { index: opts.index, atMs, walTruncated, toldFullMs: told?.ms ?? null, heldMs, recoveredMs: back?.ms ?? null, said: told?.answer.error ?? null };
  } finally {
    if (!freed) await freeDisk(disk.dir);
  }
}
