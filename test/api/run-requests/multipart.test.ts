import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listen, makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { multipartForm } from '../../helpers/multipart-form.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

/** Multipart run requests over a real socket: fields, JSON-encoded fields, attachments and their limits. */

let home: TempHome;
let t: TestApp;
let url: string;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  url = await listen(t.app);
  await writeHomeWorkflow(
    home,
    'release',
    'name: release\ndescription: r\ninputs:\n  version: { required: true }\n  tone: { default: neutral }\nnodes:\n  - id: a\n    bash: "true"\n',
  );
});
afterEach(async () => {
  await home.close();
});

const form = multipartForm;

async function postForm(data: FormData, name = 'release'): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${url}/api/workflows/${name}/run`, { method: 'POST', body: data });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Nothing of a refused request is kept: no run, and no upload or run folder on disk. */
async function expectNothingKept(): Promise<void> {
  expect(await t.store.listRuns({ limit: 10 })).toEqual([]);
  const uploads = home.paths.uploads;
  expect(existsSync(uploads) ? readdirSync(uploads) : []).toEqual([]);
  const runs = join(home.paths.workspaces, '_runs');
  expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([]);
}

describe('POST /api/workflows/{name}/run as multipart/form-data', () => {
  it('takes the fields, JSON-encoded inputs and config, and keeps the files in the run’s attachments folder', async () => {
    const res = await postForm(
      form(
        { message: 'ship it', conversationId: 'conv-mp', inputs: '{"version":"2.0"}', config: '{"assistant":"claude","env":{"TOKEN":"sekret"}}' },
        [
          { name: 'notes.txt', bytes: 'hello notes' },
          { name: 'notes.txt', bytes: 'second copy' },
        ],
      ),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: true, runId: expect.any(String), conversationId: 'conv-mp', status: 'pending' });
    const run = (await t.store.getRun(res.body.runId))!;
    expect(run.user_message).toBe('ship it');
    expect(run.inputs).toEqual({ version: '2.0', tone: 'neutral' });
    expect(run.metadata.attachments).toEqual([
      { name: 'notes.txt', original_name: 'notes.txt', path: 'attachments/notes.txt', size: 11, mime_type: 'text/plain' },
      { name: 'notes-2.txt', original_name: 'notes.txt', path: 'attachments/notes-2.txt', size: 11, mime_type: 'text/plain' },
    ]);
    const dir = join(home.paths.runArtifacts(run.id), 'attachments');
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('hello notes');
    expect(await readFile(join(dir, 'notes-2.txt'), 'utf8')).toBe('second copy');
    expect(readdirSync(home.paths.uploads)).toEqual([]);

    const detail = await fetch(`${url}/api/workflows/runs/${run.id}`).then((r) => r.text());
    expect(detail).not.toContain('sekret');
    expect(JSON.parse(detail).run.metadata.attachments).toHaveLength(2);
  });

  it('gives hostile file names safe, unique names inside the folder', async () => {
    const long = `${'x'.repeat(300)}.txt`;
    const res = await postForm(
      form({ inputs: '{"version":"1"}' }, [
        { name: '../../escape.txt', bytes: 'a' },
        { name: '.env', bytes: 'b' },
        { name: 'nul\u0000byte.sh', bytes: 'c' },
        { name: long, bytes: 'd' },
        { name: '..', bytes: 'e' },
      ]),
    );
    expect(res.status).toBe(200);
    const run = (await t.store.getRun(res.body.runId))!;
    const names = run.metadata.attachments!.map((a) => a.name);
    expect(names[0]).toBe('escape.txt');
    expect(names[1]).toBe('env');
    expect(names[2]).toBe('nulbyte.sh');
    expect(names[3]!.length).toBeLessThanOrEqual(100);
    expect(names[3]!.endsWith('.txt')).toBe(true);
    expect(names[4]).toBe('attachment');
    for (const name of names) expect(name).toMatch(/^[^./\\\0][^/\\\0]*$/);
    const dir = join(home.paths.runArtifacts(run.id), 'attachments');
    expect(readdirSync(dir).sort()).toEqual([...names].sort());
    expect(existsSync(join(home.paths.workspaces, 'escape.txt'))).toBe(false);
  });

  it('refuses a sixth file with 413 naming the limit, keeping nothing', async () => {
    const files = Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.txt`, bytes: 'x' }));
    const res = await postForm(form({ inputs: '{"version":"1"}' }, files));
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', error: expect.stringContaining('at most 5 attachments') });
    await expectNothingKept();
  });

  it('refuses a file over 10 MB with 413 naming the limit, keeping nothing', async () => {
    const big = new Uint8Array(10 * 1024 * 1024 + 1);
    const res = await postForm(form({ inputs: '{"version":"1"}' }, [{ name: 'big.bin', bytes: big, type: 'application/octet-stream' }]));
    expect(res.status).toBe(413);
    expect(res.body.error).toContain('10485760-byte (10 MB) limit');
    await expectNothingKept();
  });

  it('accepts a file of exactly 10 MB', async () => {
    const res = await postForm(form({ inputs: '{"version":"1"}' }, [{ name: 'edge.bin', bytes: new Uint8Array(10 * 1024 * 1024) }]));
    expect(res.status).toBe(200);
    expect((await t.store.getRun(res.body.runId))!.metadata.attachments![0]!.size).toBe(10 * 1024 * 1024);
  });

  it('answers 400 naming the field for inputs or config that are not JSON, keeping nothing', async () => {
    const files = [{ name: 'a.txt', bytes: 'x' }];
    const inputs = await postForm(form({ inputs: '{not json' }, files));
    expect(inputs.status).toBe(400);
    expect(inputs.body.error).toBe('inputs must be a JSON-encoded object of string values');
    const config = await postForm(form({ inputs: '{"version":"1"}', config: 'nope' }, files));
    expect(config.status).toBe(400);
    expect(config.body.error).toContain('config must be JSON-encoded');
    await expectNothingKept();
  });

  it('refuses inputs naming __proto__ as a JSON body does, rather than dropping the name and starting the run', async () => {
    const res = await postForm(form({ inputs: '{"version":"1","__proto__":"x"}' }, [{ name: 'a.txt', bytes: 'x' }]));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("inputs holds a '__proto__' or 'constructor.prototype' key, which no field accepts; remove it");
    const config = await postForm(form({ inputs: '{"version":"1"}', config: '{"constructor":{"prototype":{}}}' }));
    expect(config.status).toBe(400);
    expect(config.body.error).toContain("config holds a '__proto__' or 'constructor.prototype' key");
    await expectNothingKept();
  });

  it('refuses a JSON field nested more than 100 levels deep, as a JSON body is refused', async () => {
    const deep = `{"workflows":${'{"a":'.repeat(150)}1${'}'.repeat(150)}}`;
    const res = await postForm(form({ inputs: '{"version":"1"}', config: deep }, [{ name: 'a.txt', bytes: 'x' }]));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('config nests objects or arrays more than 100 levels deep; flatten it');
    await expectNothingKept();
  });

  it('checks the decoded fields as a JSON body is checked, before any file is kept', async () => {
    const files = [{ name: 'a.txt', bytes: 'x' }];
    const cases: [Record<string, string>, string][] = [
      [{ inputs: '{"version":1}' }, "inputs value for 'version' must be a string"],
      [{ inputs: '[]' }, 'inputs must be an object mapping input names to strings'],
      [{ inputs: '{"nope":"1","version":"1"}' }, "Unknown input 'nope'"],
      [{}, "Missing required input 'version'"],
      [{ inputs: '{"version":"1"}', config: '{"configPath":"/x"}' }, 'config.configPath is not accepted'],
      [{ inputs: '{"version":"1"}', bogus: 'x' }, "Unknown field 'bogus'"],
      [{ inputs: '{"version":"1"}', conversationId: '' }, 'conversationId must be a non-empty string'],
    ];
    for (const [fields, text] of cases) {
      const res = await postForm(form(fields, files));
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(res.body.error, JSON.stringify(fields)).toContain(text);
    }
    await expectNothingKept();
  });

  it('treats {} inputs as none, and refuses a field given twice', async () => {
    await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: p\nnodes:\n  - id: a\n    bash: "true"\n');
    const ok = await postForm(form({ inputs: '{}' }), 'plain');
    expect(ok.status).toBe(200);
    const data = form({ message: 'a' });
    data.append('message', 'b');
    const twice = await postForm(data, 'plain');
    expect(twice.status).toBe(400);
    expect(twice.body.error).toContain("Field 'message' is given twice");
  });

  it('answers 415 for multipart on a route that takes only JSON', async () => {
    const res = await fetch(`${url}/api/conversations`, { method: 'POST', body: form({ title: 'x' }) });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });
});

describe('a budget in a multipart run request', () => {
  it('is read from its JSON-encoded field into the run metadata, and refused when it is not a positive amount', async () => {
    const ok = await postForm(form({ conversationId: 'web-1-budget', inputs: '{"version":"1.0"}', budget: '{"usd": 2.5}' }));
    expect(ok.status).toBe(200);
    expect((await t.store.getRun(ok.body.runId))!.metadata).toMatchObject({ budget: { usd: 2.5 } });
    const bad = await postForm(form({ conversationId: 'web-2-budget', inputs: '{"version":"1.0"}', budget: '{"usd": 0}' }));
    expect(bad).toMatchObject({ status: 400, body: { error: expect.stringContaining('budget.usd must be greater than 0') } });
  });
});
