import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createNodeSummary } from '../../src/cli/node-summary.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun } from '../helpers/workflows.js';
import { corpusOutcomes, type CorpusRow, type Outcome } from './corpus-outcomes.js';
import { ENDLESS_PROMPT, startCorpusStandIns, type CorpusStandIns } from './corpus-stand-ins.js';

/**
 * The upstream's end-to-end corpus, unchanged, in a project's `.archon/` folder, run through one
 * real server (POST /api/workflows/{name}/run with the project as cwd) by its real supervisor:
 * real bash and bun, and for AI nodes the real Claude Code, Codex, Pi and Copilot CLIs against
 * local stand-ins of their vendors (corpus-stand-ins.ts). Each workflow of corpus-outcomes.ts that
 * runs here ends with the run status and node statuses the upstream gives it; the ones that
 * cannot run here say why there, and the README's status section gives their count.
 */
const e2e = fileURLToPath(new URL('../fixtures/corpus/upstream-e2e/', import.meta.url));
const readme = fileURLToPath(new URL('../../README.md', import.meta.url));
const workflowFiles = readdirSync(join(e2e, 'workflows')).filter((f) => f.endsWith('.yaml'));

type RunDetail = Awaited<ReturnType<typeof getRun>>;

let home: TempHome;
let server: RunningServer;
let standIns: CorpusStandIns;
let project: string;
// One server and one set of stand-ins for the file; each test gets a project folder of its own
// (one of them makes it a git repository), and asks about its own runs only.
beforeAll(async () => {
  home = await makeTempHome();
  const cliHome = await mkdtemp(join(tmpdir(), 'cairn-cli-home-'));
  home.defer(() => rm(cliHome, { recursive: true, force: true }));
  standIns = await startCorpusStandIns(cliHome);
  home.defer(() => standIns.close());
  writeFileSync(home.paths.config, standIns.configYaml, { mode: 0o600 });
  server = await startServer(home, standIns.serverEnv);
});
afterAll(async () => {
  await home.close();
});
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'cairn-project-'));
  home.defer(() => rm(project, { recursive: true, force: true }));
  for (const kind of ['workflows', 'commands', 'scripts']) cpSync(join(e2e, kind), join(project, '.archon', kind), { recursive: true });
});

async function start(name: string, message: string): Promise<string> {
  const res = await fetch(`${server.url}/api/workflows/${name}/run?cwd=${encodeURIComponent(project)}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return ((await res.json()) as { runId: string }).runId;
}

function finished(runId: string, name: string): Promise<RunDetail> {
  return waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return ['completed', 'failed', 'cancelled'].includes(detail.run.status) ? detail : undefined;
  }, { what: `${name} to finish`, timeoutMs: 120_000 });
}

async function run(name: string, message = 'corpus'): Promise<RunDetail> {
  return finished(await start(name, message), name);
}

/** The run's status and each node's, as `cairn run get` shows them. */
function outcome({ run: done, events }: RunDetail): Outcome {
  const summary = createNodeSummary();
  summary.add(events as unknown as Parameters<typeof summary.add>[0]);
  return { run: done.status, nodes: Object.fromEntries(summary.nodes().map((n) => [n.node, n.status])) };
}

const output = (events: Record<string, any>[], id: string) =>
  events.find((e) => e.step_name === id && e.event_type === 'node_completed')?.data.node_output as string | undefined;
const skipReason = (events: Record<string, any>[], id: string) => events.find((e) => e.step_name === id && e.event_type === 'node_skipped')?.data.reason;

/** What a test does beyond the table for one workflow: its argument, what it prepares, how it drives the run, what else it checks. */
interface Extra {
  message?: string;
  before?: () => void;
  drive?: (runId: string) => Promise<void>;
  check?: (detail: RunDetail) => void | Promise<void>;
}

const endlessRequest = () => standIns.chat.requests.find((r) => ENDLESS_PROMPT.test(JSON.stringify(r.body?.messages ?? [])));

const extras: Record<string, Extra> = {
  'e2e-joins': {
    check: ({ run: done, events }) => {
      expect(output(events, 'verify')).toBe('ALL JOINS OK (loop ran 3 iterations)');
      expect(events.filter((e) => e.step_name === 'countdown/tick' && e.event_type === 'node_completed').map((e) => e.data.execution.invocation.loopPath))
        .toEqual([1, 2, 3].map((iteration) => [{ groupId: 'countdown', iteration }]));
      expect(existsSync(join(project, '.e2e-joins-counter'))).toBe(false);
      // Its `output_type: probe-seed` node leaves its output_type files, as the upstream writes them.
      const nodes = join(home.paths.runArtifacts(done.id as string), 'nodes');
      expect(readFileSync(join(nodes, 'seed.md'), 'utf8')).toBe('seed-ok');
      expect(JSON.parse(readFileSync(join(nodes, 'seed.meta.json'), 'utf8'))).toMatchObject({ outputType: 'probe-seed', runId: done.id, size: 7 });
    },
  },
  'e2e-deterministic': {
    check: ({ run: done, events }) => {
      expect(output(events, 'bash-echo')).toBe('{"status":"ok","value":42}');
      // bun comes from the project's dev dependencies (npm puts node_modules/.bin on PATH).
      expect(JSON.parse(output(events, 'script-bun')!)).toMatchObject({ echoed: 'no-input' });
      // The upstream engine splices the JSON into the author's single quotes, where bash then
      // brace-expands it ('status:ok value:42'); Cairn hands the value through the environment, so
      // the node prints exactly what its producer printed.
      expect(output(events, 'bash-read-output')).toBe('upstream-status: {"status":"ok","value":42}');
      expect(output(events, 'branch-true')).toBe('branch-true-ran');
      expect(output(events, 'merge-node')).toBe('merge-ok: true=branch-true-ran false=');
      expect(skipReason(events, 'branch-false')).toBe('when_condition');
      // No uv: the python node fails at once with a clear message, and the final check, which needs every node, is skipped for it.
      const python = events.find((e) => e.step_name === 'script-python' && e.event_type === 'node_failed');
      expect(python?.data.error).toBe("runtime not found: 'uv' is not installed or not on PATH (needed by node 'script-python')");
      expect(skipReason(events, 'verify-all')).toBe('trigger_rule');
      expect(done.error).toBe(
        "DAG workflow 'e2e-deterministic' completed with failures: 'script-python': runtime not found: 'uv' is not installed or not on PATH (needed by node 'script-python')",
      );
    },
  },
  'e2e-worktree-disabled': {
    before: () => execFileSync('git', ['init', '-q', project]),
    check: ({ events }) => expect(output(events, 'assert-live-checkout')).toMatch(/PASS: ran in live checkout/),
  },
  'e2e-fanout-alldone': {
    check: ({ events }) => {
      expect(output(events, 'verify')).toContain('ALL_DONE AGGREGATED A FAILED CHILD OK');
      const spread = JSON.parse(output(events, 'spread')!) as unknown[];
      expect(spread.slice(0, 2)).toEqual(['child-ok: one', 'child-ok: two']);
      expect(spread[2]).toMatchObject({ failed: true, status: 'failed' });
    },
  },
  'e2e-fanout-allsuccess': {
    check: ({ events }) => {
      const failed = events.find((e) => e.step_name === 'spread' && e.event_type === 'node_failed');
      expect(failed?.data.execution.lifecycle.error).toContain('1 of 3 fan-out items failed (join: all_success)');
      expect(events.some((e) => e.step_name === 'report' && e.event_type === 'node_started')).toBe(false);
    },
  },
  'e2e-echo-child': {
    message: 'two',
    check: ({ events }) => expect(output(events, 'echo')).toBe('child-ok: two'),
  },
  'e2e-claude-smoke': { check: ({ events }) => expect(output(events, 'assert')).toBe('PASS: simple=4') },
  'e2e-codex-smoke': { check: ({ events }) => expect(output(events, 'assert')).toBe('PASS: simple=4 structured={"category":"math"}') },
  'e2e-mixed-providers': { check: ({ events }) => expect(output(events, 'assert')).toBe('PASS: claude=claude-ok codex=codex-ok') },
  'e2e-pi-smoke': { check: ({ events }) => expect(output(events, 'assert')).toBe('PASS: simple=4') },
  'e2e-structured-output': {
    check: ({ events }) => {
      // The declared optional field the model left out is '' (no failure); the schemaless JSON fields resolve.
      expect(output(events, 'use-fields')).toBe('sentiment=[positive]\nnote=[]\nPASS: declared field access + declared-optional resolved cleanly');
      expect(output(events, 'use-schemaless')).toBe('status=[ok] count=[3]\nPASS: schemaless JSON field access');
    },
  },
  'e2e-structured-output-failfast': {
    check: ({ run: done }) =>
      expect(done.error).toContain("$classify.output.nonexistent_field: field 'nonexistent_field' is not declared in node 'classify' output_format schema"),
  },
  'minimax-smoke': { check: ({ events }) => expect(output(events, 'ping')).toBe('PONG') },
  'minimax-isolate': {
    check: ({ events }) => expect(JSON.parse(output(events, 'small-structured-lowthink')!)).toMatchObject({ sentiment: 'positive' }),
  },
  'minimax-seq': { check: ({ events }) => expect(JSON.parse(output(events, 'c-low-structured')!)).toMatchObject({ sentiment: 'positive' }) },
  'archon-test-pi': { check: ({ events }) => expect(output(events, 'verify')).toBe('Pi provider verified ✅ (extension + ollama)') },
  'e2e-copilot-abort': {
    // The upstream's manual step, "wait for streaming to begin, press Ctrl-C": its answer has begun, then the run is cancelled.
    drive: async (runId) => {
      await waitFor(async () => endlessRequest() !== undefined, { what: 'the endless answer to start streaming', timeoutMs: 60_000 });
      const res = await fetch(`${server.url}/api/workflows/runs/${runId}/cancel`, { method: 'POST' });
      expect(res.status).toBe(200);
    },
    // The answer's connection is closed: nothing more streams (or is paid for) once the run is cancelled.
    check: async () => {
      await waitFor(async () => endlessRequest()?.closedAt !== undefined, { what: 'the endless answer to be closed' });
    },
  },
};

const runsHere = (row: CorpusRow): Outcome | undefined => (row.here ? row : row.runsHere);

it('the table covers every workflow file of the corpus, once', () => {
  expect(corpusOutcomes.map((row) => row.file).sort()).toEqual([...workflowFiles].sort());
  expect(workflowFiles).toHaveLength(21);
});

it('the table names each node of each file as the file does', () => {
  // A node's parts (`<id>/body`, `<id>[0]`) are the engine's; the file names the nodes.
  const named = (outcome: Outcome) => Object.keys(outcome.nodes).filter((id) => !/[/[]/.test(id)).sort().join();
  const misnamed = corpusOutcomes.flatMap((row) => {
    const ids = (parse(readFileSync(join(e2e, 'workflows', row.file), 'utf8')) as { nodes: { id: string }[] }).nodes.map((n) => n.id).sort().join();
    const outcomes = [row, ...(!row.here && row.runsHere ? [row.runsHere] : [])];
    return outcomes.filter((o) => named(o) !== ids).map((o) => `${row.file}: ${named(o)} != ${ids}`);
  });
  expect(misnamed).toEqual([]);
});

it("the README's status section gives the count of the table", () => {
  const status = readFileSync(readme, 'utf8').split('\n## Status\n')[1]!.split('\n## ')[0]!.replace(/\s+/g, ' ');
  const said = /(\d+) of the upstream's (\d+) end-to-end workflows run to the end here as the upstream runs them/.exec(status);
  expect(said?.slice(1).map(Number)).toEqual([corpusOutcomes.filter((row) => row.here).length, workflowFiles.length]);
});

for (const row of corpusOutcomes) {
  const expected = runsHere(row);
  if (!expected) continue;
  const name = row.file.replace(/\.yaml$/, '');
  const title = row.here
    ? `${name} ends ${row.run}, each node as the upstream gives it`
    : `${name} ends ${expected.run} here (${row.reason.split(',')[0]}), each node as the upstream gives it on such a machine`;
  it(title, async () => {
    const extra = extras[name] ?? {};
    extra.before?.();
    const runId = await start(name, extra.message ?? 'corpus');
    await extra.drive?.(runId);
    const detail = await finished(runId, name);
    expect(outcome(detail)).toEqual({ run: expected.run, nodes: expected.nodes });
    await extra.check?.(detail);
  }, 150_000); // a run may take up to 120 s on a loaded machine (the wait in `finished`)
}

it('e2e-echo-child fails on a fail- argument, its one node failed', async () => {
  const failing = await run('e2e-echo-child', 'fail-3');
  expect(outcome(failing)).toEqual({ run: 'failed', nodes: { echo: 'failed' } });
  expect(failing.events.map((e) => `${e.event_type}:${e.step_name}`).filter((e) => e.startsWith('node_'))).toEqual(['node_started:echo', 'node_failed:echo']);
});

it('the corpus files are the upstream’s, unchanged', () => {
  expect(readFileSync(join(project, '.archon', 'workflows', 'e2e-joins.yaml'), 'utf8')).toBe(readFileSync(join(e2e, 'workflows', 'e2e-joins.yaml'), 'utf8'));
});
