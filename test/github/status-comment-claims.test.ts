import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { gitHubClient } from '../../src/github/github-client.js';
import { sealGitHubToken } from '../../src/github/github-token.js';
import { GitHubStatusFollower } from '../../src/github/status-follower.js';
import { resumeStatusComments } from '../../src/github/status-resume.js';
import { createLogger } from '../../src/shared/log.js';
import { loadInstallKey } from '../../src/shared/secrets/install-key.js';
import type { Store, StoredHook } from '../../src/store/store.js';
import { startGitHubApi, type GitHubApi } from '../helpers/github-api.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { newRun } from '../store/fixtures.js';

/**
 * A GitHub run's status comment across API processes: what its delivery records (the comment's
 * id and what it shows) spares a restarted API its calls to GitHub, and the claim to make it lets
 * several API processes that bring their runs up to date at once make one comment. Each "process"
 * here is a follower of its own (its own claimant) on the home's real SQLite database, the
 * resume the API runs at start, and a local GitHub REST stand-in that records every request.
 * The runs are admitted as a GitHub hook admits them and stay pending (no supervisor).
 */

const TOKEN = 'github_pat_claims0123456789';
const REPO = 'octo/claims';
const key = loadInstallKey({ env: { TOKEN_ENCRYPTION_KEY: 'ab'.repeat(32) }, file: '/nonexistent' });

let home: TempHome;
let store: Store;
let gh: GitHubApi;
let hook: StoredHook;
let db: Database.Database;
/** What the API's logger wrote, line by line. */
const logged: { msg: string; runId?: string }[] = [];
const log = createLogger({ name: 'api', destination: { write: (line: string) => void logged.push(JSON.parse(line)) } });

beforeAll(async () => {
  home = await makeTempHome();
  store = home.openStore();
  gh = await startGitHubApi({ token: TOKEN, login: 'cairn-bot', permissions: {} });
  home.defer(() => gh.close());
  const id = randomUUID();
  await store.createHook({
    id, name: 'gh', workflowName: 'demo', codebaseId: null, signature: 'github', inputs: {}, sealedSecret: 'unused',
    github: { api_url: gh.url, workflows: [], labels: [], on_issue_opened: false, deny_reply: false, dashboard_url: null },
    sealedGithubToken: sealGitHubToken(key, id, TOKEN),
  });
  hook = (await store.getHook('gh'))!;
  db = new Database(home.paths.database);
  home.defer(() => db.close());
});
afterAll(() => home.close());

/** A pending run of the hook on issue `number`, admitted under a delivery id of its own. */
async function admitted(number: number): Promise<{ runId: string; deliveryId: string }> {
  const deliveryId = `d-${number}`;
  const run = newRun({
    metadata: { github: { repository: REPO, number, kind: 'issue', trigger: 'comment', author: 'alice', run_url: `https://cairn.example.com/runs/${number}` } },
  });
  const answer = await store.admitHookDelivery({ hookId: hook.id, deliveryId, run });
  expect(answer.admitted).toBe(true);
  return { runId: run.id, deliveryId };
}

function follower(opts: { claimStaleMs?: number } = {}): GitHubStatusFollower {
  const made = new GitHubStatusFollower({ store, log, retry: { tries: 2, firstDelayMs: 10 }, ...opts });
  home.defer(() => made.close());
  return made;
}

const resume = (f: GitHubStatusFollower) => resumeStatusComments({ store, installKey: () => key, follower: f, log, now: Date.now });
const made = (number: number) => gh.sent(new RegExp(`^POST /repos/${REPO}/issues/${number}/comments$`)).length;
const lookups = (number: number) => gh.sent(new RegExp(`^GET /repos/${REPO}/issues/${number}/comments$`)).length;
const deliveryRow = (deliveryId: string) =>
  db.prepare('SELECT status_comment_id, status_shown, status_claimed_by FROM hook_deliveries WHERE delivery_id = ?').get(deliveryId) as Record<string, unknown>;

it('records the comment it makes, so a restarted API edits it without looking for it, and leaves a finished one alone', async () => {
  const { runId, deliveryId } = await admitted(601);
  const first = follower();
  first.follow({ runId, hookId: hook.id, deliveryId, hookName: 'gh', client: gitHubClient({ apiUrl: gh.url, token: TOKEN }), repository: REPO, number: 601, workflow: 'demo', runUrl: 'u' });
  const comment = await waitFor(() => gh.comments.get(601)?.[0]);
  await waitFor(() => deliveryRow(deliveryId).status_shown === 'pending');
  expect(deliveryRow(deliveryId).status_comment_id).toBe(comment.id);
  await first.close();

  // A restart while the run is still pending: followed by its recorded comment, GitHub not asked.
  expect(await resume(follower())).toBeGreaterThanOrEqual(1);
  expect(lookups(601)).toBe(0);

  // The run ends; a process that follows it edits the comment and records its end.
  db.prepare("UPDATE workflow_runs SET status = 'cancelled', completed_at = ? WHERE id = ?").run(new Date().toISOString(), runId);
  const second = follower();
  await resume(second);
  await waitFor(() => deliveryRow(deliveryId).status_shown === 'cancelled', { what: 'the end recorded' });
  expect(gh.comments.get(601)).toHaveLength(1);
  expect(gh.comments.get(601)![0]!.body).toMatch(/cancelled/);
  await second.close();

  // Every later start: not a single request about this run.
  const before = gh.requests.length;
  await resume(follower());
  expect(gh.requests.slice(before).filter((r) => r.path.includes('/issues/601/') || r.path.includes(`/comments/${comment.id}`))).toEqual([]);
  expect(made(601)).toBe(1);
});

it('makes one comment when two API processes bring the same run up to date at once', async () => {
  const { deliveryId } = await admitted(602);
  const [a, b] = [follower(), follower()];
  await Promise.all([resume(a), resume(b)]);
  await waitFor(() => deliveryRow(deliveryId).status_comment_id !== null, { what: 'the comment recorded' });
  await waitFor(() => logged.some((l) => l.msg === 'github.status_claimed_elsewhere'), { what: 'the other process to stand back' });
  expect(made(602)).toBe(1);
  expect(gh.comments.get(602)).toHaveLength(1);
});

it('takes the making over from a process that claimed it and died before making it', async () => {
  const { runId, deliveryId } = await admitted(603);
  db.prepare('UPDATE hook_deliveries SET status_claimed_by = ?, status_claimed_at = ? WHERE delivery_id = ?').run('api@gone:1:dead', new Date().toISOString(), deliveryId);
  const waits = logged.length;
  const f = follower({ claimStaleMs: 300 });
  f.follow({ runId, hookId: hook.id, deliveryId, hookName: 'gh', client: gitHubClient({ apiUrl: gh.url, token: TOKEN }), repository: REPO, number: 603, workflow: 'demo', runUrl: 'u' });
  await waitFor(() => logged.slice(waits).find((l) => l.msg === 'github.status_claimed_elsewhere' && l.runId === runId));
  expect(made(603)).toBe(0);
  await waitFor(() => deliveryRow(deliveryId).status_comment_id !== null, { what: 'the claim taken over once stale' });
  expect(made(603)).toBe(1);
  expect(deliveryRow(deliveryId).status_claimed_by).not.toBe('api@gone:1:dead');
});

it('finds by its marker a comment whose maker stopped before recording it, and records it', async () => {
  const { runId, deliveryId } = await admitted(604);
  const f = follower();
  f.follow({ runId, hookId: hook.id, deliveryId, hookName: 'gh', client: gitHubClient({ apiUrl: gh.url, token: TOKEN }), repository: REPO, number: 604, workflow: 'demo', runUrl: 'u' });
  const comment = await waitFor(() => gh.comments.get(604)?.[0]);
  await waitFor(() => deliveryRow(deliveryId).status_comment_id !== null);
  await f.close();
  db.prepare('UPDATE hook_deliveries SET status_comment_id = NULL, status_shown = NULL WHERE delivery_id = ?').run(deliveryId);
  await resume(follower());
  expect(lookups(604)).toBe(1);
  expect(deliveryRow(deliveryId)).toMatchObject({ status_comment_id: comment.id, status_shown: 'pending' });
  expect(made(604)).toBe(1);
});
