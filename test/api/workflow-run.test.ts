import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  await writeHomeWorkflow(
    home,
    'release',
    [
      'name: release',
      'description: Draft release notes',
      'inputs:',
      '  version: { required: true }',
      '  tone: { default: neutral }',
      '  audience: { description: who reads it }',
      'nodes:',
      '  - id: log',
      '    bash: echo "$INPUTS_VERSION"',
    ].join('\n'),
  );
  await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: No inputs\nnodes:\n  - id: a\n    bash: "true"\n');
});
afterEach(async () => {
  await home.close();
});

async function projectDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-project-'));
  home.defer(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const post = (name: string, payload?: unknown, query = '') =>
  t.app.inject({ method: 'POST', url: `/api/workflows/${name}/run${query}`, ...(payload === undefined ? {} : { payload: payload as object }) });

describe('POST /api/workflows/{name}/run', () => {
  it('queues a pending run with resolved inputs and the definition it will execute', async () => {
    const res = await post('release', { message: 'ship it', inputs: { version: 'v1.2.0' } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({ accepted: true, runId: expect.any(String), conversationId: expect.any(String), status: 'pending' });
    expect(body.conversationId).toMatch(/^web-\d+-[a-z0-9]{6}$/);

    const run = await t.store.getRun(body.runId);
    expect(run).toMatchObject({
      status: 'pending',
      workflow_name: 'release',
      conversation_id: body.conversationId,
      user_message: 'ship it',
      working_path: null,
      inputs: { version: 'v1.2.0', tone: 'neutral' },
      metadata: { workflow_source: 'global', workflow_filename: 'release.yaml' },
    });
    expect(await t.store.getRunDefinition(body.runId)).toMatchObject({ name: 'release', nodes: [{ id: 'log' }] });
    const job = await t.writer.claimJob('sup', 60_000);
    expect(job).toMatchObject({ kind: 'start_run', run_id: body.runId });
  });

  it('keeps the conversationId it is given, and treats an empty inputs object as none', async () => {
    const res = await post('plain', { conversationId: 'conv-42', inputs: {} });
    expect(res.statusCode).toBe(200);
    expect(res.json().conversationId).toBe('conv-42');
    expect((await t.store.getRun(res.json().runId))?.inputs).toEqual({});
  });

  it('accepts a request with no body at all', async () => {
    const res = await post('plain');
    expect(res.statusCode).toBe(200);
    expect((await t.store.getRun(res.json().runId))?.user_message).toBe('');
  });

  it('runs in cwd and prefers the project’s workflow over the home one of the same name', async () => {
    const cwd = await projectDir();
    await mkdir(join(cwd, '.cairn', 'workflows'), { recursive: true });
    await writeFile(
      join(cwd, '.cairn', 'workflows', 'plain.yaml'),
      'name: plain\ndescription: Project copy\nnodes:\n  - id: project-node\n    bash: "true"\n',
    );
    const res = await post('plain', {}, `?cwd=${encodeURIComponent(cwd)}`);
    expect(res.statusCode).toBe(200);
    const run = await t.store.getRun(res.json().runId);
    expect(run).toMatchObject({ working_path: cwd, metadata: { workflow_source: 'project' } });
    expect(await t.store.getRunDefinition(run!.id)).toMatchObject({ nodes: [{ id: 'project-node' }] });
  });

  it('keeps tiers, aliases and inline config in the run metadata, and config.env only by its names', async () => {
    const res = await post('plain', {
      tiers: { large: { provider: 'claude', model: 'opus' } },
      aliases: { '@fast': 'claude/haiku' },
      config: {
        assistant: 'claude',
        docs: { path: 'documentation/' },
        env: { API_TOKEN: 'sekret' },
        tiers: { large: 'claude/sonnet', small: 'claude/haiku' },
        aliases: { '@fast': 'x/y', '@deep': 'claude/opus' },
        assistants: { codex: { model: 'gpt-5' } },
      },
    });
    expect(res.statusCode).toBe(200);
    const stored = await t.store.getRun(res.json().runId);
    expect(stored?.metadata.overrides).toEqual({
      tiers: { large: { provider: 'claude', model: 'opus' } },
      aliases: { '@fast': 'claude/haiku' },
      config: {
        assistant: 'claude',
        docs: { path: 'documentation/' },
        tiers: { large: 'claude/sonnet', small: 'claude/haiku' },
        aliases: { '@fast': 'x/y', '@deep': 'claude/opus' },
        assistants: { codex: { model: 'gpt-5' } },
      },
      env_names: ['API_TOKEN'],
    });
    // The explicit fields are the final layer: they replace only the names they give.
    expect(stored?.metadata.model_bindings).toEqual({
      assistant: 'claude',
      assistants: { codex: { model: 'gpt-5' } },
      tiers: { large: { provider: 'claude', model: 'opus' }, small: 'claude/haiku' },
      aliases: { '@fast': 'claude/haiku', '@deep': 'claude/opus' },
      source: {
        'tiers.large': 'request', 'tiers.small': 'config', 'aliases.@fast': 'request', 'aliases.@deep': 'config', assistant: 'config', 'assistants.codex': 'config',
      },
    });
    const row = await t.store.getRun(res.json().runId);
    expect(JSON.stringify(row)).not.toContain('sekret');
    const detail = await t.app.inject({ url: `/api/workflows/runs/${res.json().runId}` });
    expect(detail.body).not.toContain('sekret');
    expect(detail.json().run.metadata.overrides.config.env).toBeUndefined();
  });

  it('stores no model_bindings for a run that rebinds nothing', async () => {
    const res = await post('plain', { config: { docs: { path: 'd/' } } });
    expect(res.statusCode).toBe(200);
    expect((await t.store.getRun(res.json().runId))?.metadata.model_bindings).toBeUndefined();
  });

  it('refuses config keys that have no effect on one run, and two different default assistants', async () => {
    const ineffective = await post('plain', { config: { concurrency: { maxConversations: 2 } } });
    expect(ineffective.statusCode).toBe(400);
    expect(ineffective.json().error).toContain("key 'concurrency' has no effect on one run");
    const both = await post('plain', { config: { assistant: 'claude', defaultAssistant: 'codex' } });
    expect(both.statusCode).toBe(400);
    expect(both.json().error).toContain('config.assistant and config.defaultAssistant');
    expect(await t.store.listRuns({ limit: 5 })).toEqual([]);
  });
});

describe('POST /api/workflows/{name}/run refusals (nothing is written)', () => {
  afterEach(async () => {
    expect(await t.store.listRuns({ limit: 10 })).toEqual([]);
  });

  const refused = async (res: Awaited<ReturnType<typeof post>>, status: number, error: string | RegExp) => {
    expect(res.statusCode).toBe(status);
    if (typeof error === 'string') expect(res.json().error).toBe(error);
    else expect(res.json().error).toMatch(error);
  };

  it('404 for a workflow that does not exist', async () => {
    await refused(await post('definitely-missing', {}), 404, 'Workflow not found: definitely-missing');
  });

  it.each(['..%2Fetc', '.hidden', 'a%5Cb', 'a%2Fb'])('400 Invalid workflow name for %s', async (name) => {
    await refused(await post(name, {}), 400, 'Invalid workflow name');
  });

  it('400 for a workflow file that does not load', async () => {
    await writeHomeWorkflow(home, 'broken', 'name: broken\nnodes: []\n');
    await refused(await post('broken', {}), 400, /^Workflow file is invalid: /);
  });

  it('400 naming the file and listing its errors for a file whose YAML does not parse', async () => {
    await writeHomeWorkflow(home, 'colon', 'name: colon\ndescription: Review: the diff\nnodes:\n  - id: a\n    bash: echo hi\n');
    const res = await post('colon', {});
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'WORKFLOW_INVALID',
      error: "Workflow file is invalid: 'colon' is declared in colon.yaml (global), which did not load",
      errors: [expect.stringMatching(/^YAML parse error: /)],
    });
  });

  it('400 naming an undeclared input, and a missing required one', async () => {
    await refused(
      await post('release', { inputs: { version: '1', colour: 'red' } }),
      400,
      "Unknown input 'colour' for workflow 'release'; declared inputs: version, tone, audience",
    );
    await refused(await post('release', { inputs: { tone: 'warm' } }), 400, "Missing required input 'version' for workflow 'release'");
    await refused(await post('release', {}), 400, "Missing required input 'version' for workflow 'release'");
    await refused(await post('plain', { inputs: { x: '1' } }), 400, "Unknown input 'x': workflow 'plain' declares no inputs");
  });

  it('400 when inputs is not an object of strings', async () => {
    await refused(await post('release', { inputs: { version: 1 } }), 400, "inputs value for 'version' must be a string");
    await refused(await post('release', { inputs: [] }), 400, 'inputs must be an object mapping input names to strings');
    await refused(await post('release', { inputs: 'version=1' }), 400, 'inputs must be an object mapping input names to strings');
  });

  it('400 for a JSON body that is not usable', async () => {
    const raw = (payload: string, type = 'application/json') =>
      t.app.inject({ method: 'POST', url: '/api/workflows/plain/run', headers: { 'content-type': type }, payload });
    await refused(await raw('{"message": '), 400, 'Invalid JSON in request body');
    await refused(await raw('"just a string"'), 400, 'Request body must be a JSON object');
    await refused(await raw('[1, 2]'), 400, 'Request body must be a JSON object');
  });

  it('400 for a JSON null body, like any other body that is not an object', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/workflows/plain/run', headers: { 'content-type': 'application/json' }, payload: 'null' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Request body must be a JSON object');
    expect(await t.store.listRuns({ limit: 10 })).toEqual([]);
  });

  it('415 for a body that is not JSON at all, saying how to send it', async () => {
    const res = await t.app.inject({
      method: 'POST', url: '/api/workflows/plain/run', headers: { 'content-type': 'text/plain' }, payload: 'message=hi',
    });
    await refused(res, 415, /^Unsupported content type 'text\/plain'; send the body as JSON/);
  });

  it('400 naming the field for fields of the wrong type', async () => {
    await refused(await post('plain', { message: 42 }), 400, 'message must be a string');
    await refused(await post('plain', { conversationId: '' }), 400, 'conversationId must be a non-empty string');
    await refused(await post('plain', { conversationId: 7 }), 400, 'conversationId must be a non-empty string');
    await refused(await post('plain', { conversationId: 'a b' }), 400, /^conversationId must be a non-empty alphanumeric string/);
    await refused(await post('plain', { mesage: 'typo' }), 400, /^Unknown field 'mesage'/);
  });

  it('400 naming conversationId for __dashboard__, the key of the dashboard stream (GET /api/stream/__dashboard__)', async () => {
    const res = await post('plain', { conversationId: '__dashboard__' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/conversationId/i);
    expect(res.json().error).toBe(
      "conversationId '__dashboard__' is reserved for the dashboard stream (GET /api/stream/__dashboard__); use another id, or omit conversationId to get a new one",
    );
    expect(await t.store.listRuns({ limit: 10 })).toEqual([]);
  });

  it('413 for a body over the limit', async () => {
    await refused(await post('plain', { message: 'x'.repeat(2 * 1024 * 1024) }), 413, /larger than the \d+-byte limit/);
  });

  it('400 for a cwd that is not an absolute path to an existing directory', async () => {
    const file = join(await projectDir(), 'file.txt');
    await writeFile(file, 'x');
    await refused(await post('plain', {}, '?cwd=relative/dir'), 400, "Invalid cwd: 'relative/dir' is not an absolute path");
    await refused(await post('plain', {}, `?cwd=${encodeURIComponent('/no/such/dir')}`), 400, "Invalid cwd: '/no/such/dir' is not an existing directory");
    await refused(await post('plain', {}, `?cwd=${encodeURIComponent(file)}`), 400, /is not an existing directory$/);
  });

  it('400 naming the config key that is not accepted', async () => {
    await refused(await post('plain', { config: { foo: 1 } }), 400, /^config: unknown key 'foo'; accepted keys are assistant, defaultAssistant/);
    await refused(await post('plain', { config: { configPath: '/etc/x.yaml' } }), 400, /^config\.configPath is not accepted/);
    await refused(await post('plain', { config: { docs: { path: 'd', root: 'x' } } }), 400, /^config\.docs: unknown key 'root'; only docs\.path/);
    await refused(await post('plain', { config: { env: { TOKEN: 5 } } }), 400, "config.env value for 'TOKEN' must be a string");
    await refused(await post('plain', { config: { env: { 'BAD-NAME': 'x' } } }), 400, "config.env key 'BAD-NAME' is not a valid variable name");
    await refused(await post('plain', { config: [] }), 400, 'config must be an object');
  });

  it('400 naming an assistant setting other than model, never echoing its value', async () => {
    const secret = 'sk-ant-run-config-secret';
    const res = await post('plain', { config: { assistants: { claude: { model: 'sonnet', apiKey: secret } } } });
    await refused(res, 400, /^config\.assistants\.<id>: key 'apiKey' has no effect on one run; only model is accepted/);
    expect(res.body).not.toContain(secret);
  });

  it('400 for tiers and aliases that are not model specs under valid names', async () => {
    await refused(await post('plain', { tiers: { huge: 'opus' } }), 400, /^tiers: unknown tier 'huge'/);
    await refused(await post('plain', { tiers: { large: '' } }), 400, /^tiers\.large: must be a model spec/);
    await refused(await post('plain', { tiers: { small: { provider: 'claude' } } }), 400, /^tiers\.small: must be a model spec/);
    await refused(await post('plain', { aliases: { cheap: 'haiku' } }), 400, "aliases: Alias name 'cheap' must start with '@' (e.g. '@cheap').");
    await refused(
      await post('plain', { aliases: { small: 'haiku' } }),
      400,
      "aliases: Alias name 'small' is reserved (small/medium/large are tier keywords). Use a different name.",
    );
    await refused(await post('plain', { config: { tiers: { medium: 3 } } }), 400, /^config\.tiers\.medium: must be a model spec/);
  });
});
