import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { THREAD_YOUNG_GENERATION_MB } from '../../../src/worker/pool/thread-heap.js';
import { sourceModule, tsxImport } from '../../helpers/built-files.js';

const threadHeapModule = sourceModule('src/worker/pool/thread-heap.ts');

/**
 * A process started like the supervisor (`--max-semi-space-size=1`, launcher.ts) churns through
 * short-lived objects on its main thread and in a worker thread started with the pool's
 * `resourceLimits`, and prints how large each one's young generation grew (new space, bytes).
 */
const probe = (reset: boolean) => `
const { getHeapSpaceStatistics } = require('node:v8');
const { Worker } = require('node:worker_threads');
const churn = () => {
  const keep = [];
  for (let i = 0; i < 2e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 20000) keep.length = 0; }
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
};
import(${JSON.stringify(threadHeapModule)}).then(({ letThreadsSizeTheirOwnHeaps, THREAD_YOUNG_GENERATION_MB }) => {
  const main = churn();
  ${reset ? 'letThreadsSizeTheirOwnHeaps();' : ''}
  const worker = new Worker(\`
    const { getHeapSpaceStatistics } = require('node:v8');
    require('node:worker_threads').parentPort.postMessage((\${churn.toString()})());\`,
    { eval: true, resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB } });
  worker.once('message', (thread) => { console.log(JSON.stringify({ main, thread })); void worker.terminate(); });
});
`;

async function youngGenerations(reset: boolean): Promise<{ main: number; thread: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--max-semi-space-size=1', ...tsxImport, '-e', probe(reset)]);
  return JSON.parse(stdout) as { main: number; thread: number };
}

describe('worker threads size their own young generation', () => {
  const MB = 1024 * 1024;

  it('gives a thread its own young generation while the main thread keeps the 1 MB semi-spaces', async () => {
    const { main, thread } = await youngGenerations(true);
    expect(main).toBeLessThanOrEqual(2 * MB);
    expect(thread).toBeGreaterThan(4 * MB);
    expect(thread).toBeLessThanOrEqual(THREAD_YOUNG_GENERATION_MB * MB);
  });

  it('is needed: without it the process flag caps the thread too', async () => {
    const { thread } = await youngGenerations(false);
    expect(thread).toBeLessThanOrEqual(2 * MB);
  });
});
