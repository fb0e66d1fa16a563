import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { addWorkflow, openSession } from './session.js';

/**
 * How fast a webhook delivery is acknowledged while deliveries keep coming: `rate` signed
 * deliveries per second (generic form, each a new delivery id, every tenth a repeat of the one
 * before) for `seconds`, sent on schedule whether or not earlier ones were answered, to a real
 * `cairn serve` whose supervisor runs the one-node run each new delivery queues. An
 * acknowledgement is the time from sending a delivery to its answer (202, or 200 for a repeat).
 */
export interface WebhookAcksRow {
  rate: number;
  sent: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /**
   * Delivery ids not answered with exactly one 202 and, for a repeat, one 200 naming the same run
   * (there should be none; a repeat may overtake its first sending and be the one admitted).
   */
  wrong: number;
  /** Runs in the store once all were answered, against new delivery ids sent. */
  runs: number;
  newDeliveries: number;
}

const SECRET = 'bench-secret-0123456789abcdef0123';
const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export async function webhookAcks(rate = 100, seconds = 10): Promise<WebhookAcksRow> {
  const session = await openSession();
  try {
    await addWorkflow(session, 'hooked', 'name: hooked\ndescription: one node\ninputs:\n  n: { required: true }\nnodes:\n  - id: a\n    bash: "true"\n');
    const url = session.server.url;
    const made = await fetch(`${url}/api/hooks`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', workflow: 'hooked', signature: 'generic', secret: SECRET, inputs: { n: '$.n' } }),
    });
    if (made.status !== 201) throw new Error(`hook not made: ${made.status} ${await made.text()}`);
    const send = async (i: number, repeat: boolean) => {
      const n = repeat ? i - 1 : i;
      const body = JSON.stringify({ n });
      const ts = String(Math.floor(Date.now() / 1000));
      const sig = createHmac('sha256', SECRET).update(`${ts}.${body}`).digest('hex');
      const start = performance.now();
      const res = await fetch(`${url}/api/hooks/bench`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-cairn-timestamp': ts, 'x-cairn-signature': `sha256=${sig}`, 'x-cairn-delivery': `d-${n}` },
        body,
      });
      const answer = (await res.json()) as { runId?: string };
      return { n, ms: performance.now() - start, status: res.status, runId: answer.runId };
    };
    const total = rate * seconds;
    const answers: ReturnType<typeof send>[] = [];
    const t0 = performance.now();
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      answers.push(send(i, i % 10 === 9));
    }
    const done = await Promise.all(answers);
    const ms = done.map((a) => a.ms).sort((a, b) => a - b);
    const byId = new Map<number, typeof done>();
    for (const a of done) byId.set(a.n, [...(byId.get(a.n) ?? []), a]);
    const wrong = [...byId.values()].filter((group) => {
      const statuses = group.map((a) => a.status).sort();
      return statuses[0] !== (group.length === 2 ? 200 : 202) || statuses.at(-1) !== 202 || new Set(group.map((a) => a.runId)).size !== 1;
    }).length;
    const store = session.home.openStore();
    const runs = (await store.listRuns({ workflowName: 'hooked', limit: total + 10 })).length;
    return {
      rate, sent: total, p50: percentile(ms, 50), p95: percentile(ms, 95), p99: percentile(ms, 99), max: ms.at(-1)!,
      wrong, runs, newDeliveries: total - Math.floor(total / 10),
    };
  } finally {
    await session.close();
  }
}

export function formatWebhookAcksTable(row: WebhookAcksRow): string {
  const f = (n: number) => n.toFixed(1);
  return [
    `## Webhook acknowledgements: ${row.rate} deliveries per second for ${row.sent / row.rate} s\n`,
    '| deliveries | ack p50 | p95 | p99 | max | wrong answers | runs / new delivery ids |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    `| ${row.sent} | ${f(row.p50)} ms | ${f(row.p95)} ms | ${f(row.p99)} ms | ${f(row.max)} ms | ${row.wrong} | ${row.runs} / ${row.newDeliveries} |`,
    '',
  ].join('\n');
}
