import { mkdtemp, mkdir, readFile, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { homePaths } from '../shared/paths.js';
import { runChecks, type CheckResult, type StressCounts } from './checks.js';
import { diskFullOnce, type DiskFullRecord, type StressDisk } from './disk-fulls.js';
import { readHistory, type RecordedRun } from './history.js';
import type { KillChoice, KillRecord } from './kill-record.js';
import { killOnce } from './kills.js';
import { startOwnServer, type OwnServer } from './own-server.js';
import { processesCarrying, serverResidentKiB } from './process-tree.js';
import { startRunTender } from './run-tender.js';
import { createSeededRandom } from './seeded-random.js';
import { mountTmpfs, unmountTmpfs } from './small-disk.js';
import { startStandInMessagesApi, type StandInMessagesApi } from './stand-in-messages-api.js';
import { createStressClient, type StressClient } from './stress-client.js';
import { planStress, type StressPlan } from './workflows.js';

/**
 * One `cairn stress` pass: a server (its own on a scratch home, or `--url`), the planned runs
 * started in batches, seeded kills among them, every run tended to its end, then the history
 * read back and checked, the server stopped and the machine searched for what it left.
 */

export interface StressOptions {
  nodes: number;
  runs: number;
  kill: KillChoice;
  kills: number;
  seed: number;
  /** Another server to target; nothing is killed then. */
  url: string | undefined;
  /** Put the scratch home on a small disk (a tmpfs; needs root) and fill it at seeded moments. */
  diskFull?: boolean;
}

export interface StressResult {
  ok: boolean;
  options: StressOptions;
  url: string;
  /** The scratch home when it was kept (a check failed), else null. */
  keptHome: string | null;
  checks: CheckResult[];
  counts: StressCounts & { gatesAnswered: number; aiCalls: number; killsByKind: Record<string, number>; serverCrashes: number | null; extraRuns: number };
  kills: KillRecord[];
  /** The full-disk episodes of `--disk-full`. */
  diskFulls: DiskFullRecord[];
  /** Resident memory of the server's processes in KiB, after start and before stop; null with --url. */
  memory: { beforeKiB: number; afterKiB: number } | null;
  /** What stopped the pass early, if anything. */
  fatal: string | null;
  durationMs: number;
}

const ORPHANS_GONE_WITHIN_MS = 10_000;
/** The small disk of `--disk-full`: room for a pass's database and logs, filled in well under a second. */
export const SMALL_DISK_MB = 256;

/**
 * Uncaught errors the server's processes died of, from their output: Node prints its version
 * line after each such trace. A SIGKILLed process prints nothing, so each is a crash of its own.
 */
async function countCrashes(logPath: string): Promise<number> {
  const text = await readFile(logPath, 'utf8').catch(() => '');
  return text.match(/^Node\.js v\d+/gm)?.length ?? 0;
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The runs of batch `b` of `batches`: the runs are split as evenly as they go. */
function batchRange(b: number, batches: number, runs: number): [number, number] {
  return [Math.floor((b * runs) / batches), Math.floor(((b + 1) * runs) / batches)];
}

async function writeWorkflows(home: string, plan: StressPlan): Promise<void> {
  const folder = join(home, 'workflows');
  await mkdir(folder, { recursive: true });
  for (const wf of plan.workflows) await writeFile(join(folder, `${wf.name}.yaml`), wf.yaml);
}

/** After the server stopped: what still carries the home, waited on a while, then killed. */
async function collectOrphans(home: string): Promise<{ pid: number; comm: string; where: string }[]> {
  const deadline = Date.now() + ORPHANS_GONE_WITHIN_MS;
  let left = processesCarrying(home);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100);
    left = processesCarrying(home);
  }
  for (const orphan of left) {
    try {
      process.kill(orphan.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return left;
}

/** `integrity_check` of the stopped server's database, or why it could not be read. */
async function databaseIntegrityOf(database: string): Promise<string> {
  try {
    // Loaded here: `cairn` stays a light client until a stress pass needs the database driver.
    const { integrityOf } = await import('../store/sqlite/file-upkeep.js');
    return integrityOf(database);
  } catch (err) {
    return `could not be opened: ${(err as Error).message}`;
  }
}

/** Removes the scratch home; on a small disk, its contents, then the mount, then the folder. */
async function removeHome(home: string, mounted: boolean): Promise<void> {
  if (!mounted) return rm(home, { recursive: true, force: true });
  for (const entry of await readdir(home)) await rm(join(home, entry), { recursive: true, force: true });
  unmountTmpfs(home);
  await rmdir(home);
}

/** Runs one stress pass; `progress` gets a line per batch, kill and phase. */
export async function runStress(opts: StressOptions, io: { env: NodeJS.ProcessEnv; progress(line: string): void }): Promise<StressResult> {
  const began = Date.now();
  const random = createSeededRandom(opts.seed);
  const own = opts.url === undefined;
  const plan = planStress({ runs: opts.runs, nodes: opts.nodes, withAi: own, random });
  const since = () => `+${((Date.now() - began) / 1000).toFixed(1)}s`;
  let standIn: StandInMessagesApi | undefined;
  let server: OwnServer | undefined;
  let client: StressClient;
  let home: string | undefined;
  let disk: StressDisk | undefined;
  if (own) {
    home = await mkdtemp(join(tmpdir(), 'cairn-stress-'));
    if (opts.diskFull) {
      mountTmpfs(home, SMALL_DISK_MB);
      disk = { dir: home, database: homePaths(home).database, log: join(home, 'stress-server.log') };
    }
    await writeWorkflows(home, plan);
    standIn = await startStandInMessagesApi();
    try {
      ({ server, client } = await startOwnServer({
        home,
        env: io.env,
        extraEnv: { ANTHROPIC_BASE_URL: standIn.url, ANTHROPIC_API_KEY: 'cairn-stress-stand-in' },
        client: (url) => createStressClient(url),
      }));
    } catch (err) {
      await standIn.close();
      if (disk) unmountTmpfs(home);
      throw err;
    }
    io.progress(`cairn stress: server ${server.url} on scratch home ${home}${disk ? ` (a ${SMALL_DISK_MB} MB tmpfs it fills)` : ''} (seed ${opts.seed}, output in ${server.logPath})`);
  } else {
    client = createStressClient(opts.url!);
    await client.health();
    for (const wf of plan.workflows) await client.saveWorkflow(wf.name, parseYaml(wf.yaml));
    io.progress(`cairn stress: server ${opts.url} (seed ${opts.seed}); ${plan.workflows.length} stress-* workflows saved in its home; no AI nodes, no kills`);
  }
  const memoryBefore = server ? serverResidentKiB(server.tree()) : 0;
  const tender = startRunTender(client, (line) => io.progress(`  ${line}`));
  const started: string[] = [];
  const kills: KillRecord[] = [];
  const diskFulls: DiskFullRecord[] = [];
  let fatal: string | null = null;
  // Without kills, --disk-full still fills the disk between batches: up to three of them.
  const batches = opts.kills === 0 ? (disk ? Math.min(opts.runs, 3) : 1) : Math.min(opts.runs, opts.kills);
  let nextBatch = 0;
  const startBatchesUpTo = async (last: number) => {
    for (; nextBatch <= last && nextBatch < batches; nextBatch++) {
      const [from, to] = batchRange(nextBatch, batches, opts.runs);
      const ids: string[] = [];
      for (const run of plan.runs.slice(from, to)) ids.push(await client.startRun(run.workflow));
      started.push(...ids);
      tender.track(ids);
      io.progress(`batch ${nextBatch + 1}/${batches} ${since()}: started ${ids.length} run(s) (${plan.runs.slice(from, to).map((r) => `${r.workflow}: ${r.features.join(', ')}`).join('; ')})`);
    }
  };
  // A kill with nothing in flight (the runs so far have ended) would cut nothing short: it gets
  // another run of the plan's workflows, in turn, counted with the rest.
  let extraRuns = 0;
  const startExtraRun = async () => {
    await startBatchesUpTo(batches - 1);
    const run = plan.runs[extraRuns % plan.runs.length]!;
    extraRuns += 1;
    const id = await client.startRun(run.workflow);
    started.push(id);
    tender.track([id]);
    io.progress(`extra run ${extraRuns} ${since()}: nothing in flight, started ${run.workflow} (${run.features.join(', ')})`);
  };
  let memoryAfter = 0;
  let runs: RecordedRun[] = [];
  try {
    // A step per kill, and with --disk-full at least one per batch; each new batch gets a fill.
    const steps = Math.max(opts.kills, disk ? batches : 0);
    for (let i = 0; i < steps && server; i++) {
      const batch = Math.floor((i * batches) / steps);
      // A fill at each step that begins a batch (batches may have been started early, for extra runs).
      const batchStep = i === 0 || batch > Math.floor(((i - 1) * batches) / steps);
      await startBatchesUpTo(batch);
      if (disk && batchStep) {
        const full = await diskFullOnce({ index: diskFulls.length, disk, client, random });
        diskFulls.push(full);
        io.progress(`disk full ${diskFulls.length}/${batches} ${since()}: ${full.toldFullMs === null ? 'the server never said so' : `the server said so in ${(full.toldFullMs / 1000).toFixed(1)}s`}; held ${(full.heldMs / 1000).toFixed(1)}s, freed; ${full.recoveredMs === null ? 'writes still failing' : `writes again in ${(full.recoveredMs / 1000).toFixed(1)}s`}`);
      }
      if (i >= opts.kills) continue;
      const kill = await killOnce({ index: i, choice: opts.kill, random, server, client, startMore: startExtraRun });
      kills.push(kill);
      io.progress(kill.landed
        ? `kill ${i + 1}/${opts.kills} ${since()}: ${kill.kind} pid ${kill.pid}; server back in ${((kill.recoveredMs ?? 0) / 1000).toFixed(1)}s${kill.note ? ` (${kill.note})` : ''}`
        : `kill ${i + 1}/${opts.kills} ${since()}: ${kill.kind} not killed: ${kill.note}`);
    }
    await startBatchesUpTo(batches - 1);
    io.progress(`waiting for ${started.length} run(s) to end ${since()}`);
    const { unsettled } = await tender.settled(Date.now() + 90_000 + opts.runs * opts.nodes * 500);
    if (unsettled.length > 0) io.progress(`  ${unsettled.length} run(s) still not ended: ${unsettled.join(', ')}`);
  } catch (err) {
    fatal = (err as Error).message;
    io.progress(`stopped early: ${fatal}`);
  } finally {
    tender.stop();
  }
  try {
    runs = await readHistory(client, started);
  } catch (err) {
    fatal ??= `reading the runs back: ${(err as Error).message}`;
  }
  let orphans: { pid: number; comm: string; where: string }[] | undefined;
  let serverCrashes: number | null = null;
  let databaseIntegrity: string | undefined;
  if (server && home) {
    memoryAfter = serverResidentKiB(server.tree());
    io.progress(`stopping the server ${since()}`);
    await server.stop();
    orphans = await collectOrphans(home);
    serverCrashes = await countCrashes(server.logPath);
    databaseIntegrity = await databaseIntegrityOf(homePaths(home).database);
  }
  await standIn?.close();
  const { checks, counts } = runChecks({
    runs, runsAsked: opts.runs, startedRunIds: started, expectedPaths: plan.expectedPaths, kills, killsAsked: opts.kills,
    resumes: tender.resumes(), wholeLog: own, orphans, serverCrashes: serverCrashes ?? undefined,
    diskFulls: disk ? diskFulls : undefined, databaseIntegrity,
  });
  const ok = fatal === null && checks.every((c) => c.ok !== false);
  if (home && ok) await removeHome(home, disk !== undefined);
  const killsByKind: Record<string, number> = {};
  for (const k of kills) if (k.landed) killsByKind[k.kind] = (killsByKind[k.kind] ?? 0) + 1;
  return {
    ok,
    options: opts,
    url: server?.url ?? opts.url!,
    keptHome: home && !ok ? home : null,
    checks,
    counts: { ...counts, gatesAnswered: tender.gatesAnswered(), aiCalls: standIn?.calls() ?? 0, killsByKind, serverCrashes, extraRuns },
    kills,
    diskFulls,
    memory: server ? { beforeKiB: memoryBefore, afterKiB: memoryAfter } : null,
    fatal,
    durationMs: Date.now() - began,
  };
}
