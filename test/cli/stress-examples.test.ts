import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { runCliInProcess } from './cli-harness.js';
import { assertBuilt } from './cli-process.js';
import { sh } from './shell-line.js';
import { smallDisksAvailable } from '../helpers/small-disk.js';

/**
 * `cairn stress` as the README and docs/cli.md show it, run as written (plus `--json`) through
 * the built bin with real processes: a server of its own, real SIGKILLs of its supervisor and of
 * its launcher, and every check holding with counts that agree with each other.
 */

const checkout = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(fileURLToPath(new URL(`../../${file}`, import.meta.url)), 'utf8');

/** The `stress` command lines of a document's sh blocks, as a user types them in the checkout. */
function stressExamples(text: string): string[] {
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.flatMap((b) => b.split('\n')).filter((line) => /^(cairn|node bin\/cairn\.js) stress /.test(line) && !line.includes('[')).map((line) => line.replace(/^cairn /, 'node bin/cairn.js '));
}

const readmeExamples = stressExamples(read('README.md'));
const docExamples = stressExamples(read('docs/cli.md').split('\n## cairn stress\n')[1] ?? '');

beforeAll(assertBuilt);

it('the README shows a launcher kill, docs/cli.md a supervisor kill and a full disk', () => {
  expect(readmeExamples).toEqual([expect.stringContaining('--kill launcher')]);
  expect(docExamples).toEqual([expect.stringContaining('--kill supervisor'), expect.stringContaining('--kills 0 --disk-full')]);
});

const killExamples = [...readmeExamples, ...docExamples].filter((line) => !line.includes('--disk-full'));
const diskFullExamples = docExamples.filter((line) => line.includes('--disk-full'));

/** Runs a documented stress line with `--json`: it exits 0 and every check it makes holds. */
async function passingReport(line: string) {
  const { NO_COLOR: _n, CAIRN_URL: _u, PORT: _p, ...env } = process.env;
  const res = await sh(`${line} --json`, checkout, env);
  expect(res.code, res.stderr + res.stdout).toBe(0);
  const report = JSON.parse(res.stdout);
  expect(report.ok).toBe(true);
  expect(report.fatal).toBeNull();
  expect(report.keptHome).toBeNull();
  const made = report.checks.filter((c: { ok: boolean | null }) => c.ok !== null);
  for (const check of made) expect(check.ok, `${check.id}: ${check.detail}`).toBe(true);
  // Only the full-disk check is skipped, and only without --disk-full.
  expect(report.checks.filter((c: { ok: boolean | null }) => c.ok === null).map((c: { id: string }) => c.id)).toEqual(line.includes('--disk-full') ? [] : ['disk-full-told']);
  expect(report.counts.runs).toBe(Number(/--runs (\d+)/.exec(line)![1]) + report.counts.extraRuns);
  return { report, stderr: res.stderr };
}

it.skipIf(!smallDisksAvailable).each(diskFullExamples)('%s passes every check: the disk filled three times, runs waited', async (line) => {
  const { report, stderr } = await passingReport(line);
  expect(report.diskFulls).toHaveLength(3);
  for (const full of report.diskFulls) expect(full).toMatchObject({ walTruncated: true, toldFullMs: expect.any(Number), recoveredMs: expect.any(Number) });
  expect(report.counts).toMatchObject({ failedAttempts: 0, resumes: 0, killsLanded: 0, serverCrashes: 0 });
  expect(report.counts.attempts).toBe(report.counts.nodesCompleted);
  expect(stderr.match(/^disk full \d\/3 /gm)).toHaveLength(3);
});

it.each(killExamples)('%s passes every check', async (line) => {
  const { report, stderr } = await passingReport(line);
  const kills = Number(/--kills (\d+)/.exec(line)![1]);
  const kind = /--kill (\w+)/.exec(line)![1]!;
  const { counts } = report;
  expect(counts.killsLanded).toBe(kills);
  expect(counts.killsByKind).toEqual({ [kind]: kills });
  expect(report.kills).toHaveLength(kills);
  // Each attempt ended once: completed, or cut short by a kill and recorded interrupted.
  expect(counts.attempts).toBe(counts.nodesCompleted + counts.interruptedAttempts);
  expect(counts.reruns).toBe(counts.interruptedAttempts);
  expect(counts.reruns).toBeLessThanOrEqual(counts.inFlightAtKills);
  expect(counts).toMatchObject({ failedAttempts: 0, resumes: 0 });
  expect(counts.gatesAnswered).toBeGreaterThan(0);
  expect(counts.aiCalls).toBeGreaterThan(0);
  expect(counts.childRuns).toBeGreaterThan(0);
  expect(report.memory.beforeKiB).toBeGreaterThan(0);
  expect(counts.serverCrashes).toBe(0);
  // Progress: a line per batch and per kill.
  expect(stderr.match(/^kill \d+\/\d+ /gm)).toHaveLength(kills);
});

it('refuses --kill with --url: it kills nothing it did not start', async () => {
  const res = await runCliInProcess(['stress', '--url', 'http://127.0.0.1:9', '--kill', 'supervisor']);
  expect(res.code).toBe(2);
  expect(res.stderr).toContain('with --url it kills nothing it did not start');
});

it('refuses --disk-full with --url: it fills no disk it did not mount', async () => {
  const res = await runCliInProcess(['stress', '--url', 'http://127.0.0.1:9', '--disk-full']);
  expect(res.code).toBe(2);
  expect(res.stderr).toContain('it fills no disk it did not mount');
});
