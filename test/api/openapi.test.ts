import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { openApi30Problems } from './openapi-check.js';
import { DASHBOARD_ASSETS, DASHBOARD_PAGES } from '../../src/api/routes/web-pages.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('serves a valid OpenAPI 3.0 document listing the run, health and stream routes', async () => {
  const { app } = await makeTestApp(home, { version: '1.2.3' });
  const res = await app.inject({ url: '/api/openapi.json' });
  expect(res.statusCode).toBe(200);
  const doc = res.json();
  expect(openApi30Problems(doc)).toEqual([]);
  expect(doc.info.version).toBe('1.2.3');
  const operations = Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );
  expect(operations).toEqual(
    expect.arrayContaining([
      'GET /health',
      'GET /health/db',
      'GET /api/health',
      'POST /api/workflows/{name}/run',
      'POST /api/workflows/{name}/dry-run',
      'GET /api/workflows/runs',
      'GET /api/workflows/runs/{runId}',
      'POST /api/workflows/runs/{runId}/cancel',
      'GET /api/workflows/runs/{runId}/fan-out/{nodeId}',
      'POST /api/workflows/runs/{runId}/fan-out/{nodeId}/retry',
      'GET /api/stream/__dashboard__',
      'GET /api/stream/{conversationId}',
      'GET /api/schedules',
      'POST /api/schedules',
      'POST /api/schedules/preview',
      'GET /api/schedules/{id}',
      'POST /api/schedules/{id}/pause',
      'POST /api/schedules/{id}/resume',
      'POST /api/schedules/{id}/run-now',
      'DELETE /api/schedules/{id}',
      'GET /api/hooks',
      'POST /api/hooks',
      'GET /api/hooks/{name}',
      'DELETE /api/hooks/{name}',
      'POST /api/hooks/{name}',
      'PUT /api/hooks/{name}/github-token',
    ]),
  );
  expect(operations).not.toContain('GET /api/openapi.json');
});

it('describes the fan-out grid: its paging query, its answer and an item\'s fields', async () => {
  const { app } = await makeTestApp(home);
  const doc = (await app.inject({ url: '/api/openapi.json' })).json();
  const grid = doc.paths['/api/workflows/runs/{runId}/fan-out/{nodeId}'].get;
  expect(grid.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`).sort()).toEqual(['path:nodeId', 'path:runId', 'query:limit', 'query:offset']);
  const answer = grid.responses['200'].content['application/json'].schema;
  expect(Object.keys(answer.properties)).toEqual(['runId', 'nodeId', 'mode', 'total', 'counts', 'items', 'nextOffset']);
  expect(Object.keys(answer.properties.items.items.properties)).toEqual([
    'index', 'identity', 'item', 'childRunId', 'status', 'attempts', 'durationMs', 'costUsd', 'outputPreview', 'error',
  ]);
  const retry = doc.paths['/api/workflows/runs/{runId}/fan-out/{nodeId}/retry'].post;
  expect(Object.keys(retry.responses['200'].content['application/json'].schema.properties)).toEqual(['success', 'message', 'retried']);
});

it('describes the run request body, its optional query and its answers', async () => {
  const { app } = await makeTestApp(home);
  const doc = (await app.inject({ url: '/api/openapi.json' })).json();
  const start = doc.paths['/api/workflows/{name}/run'].post;
  expect(start.requestBody.required).toBe(false);
  const body = start.requestBody.content['application/json'].schema;
  expect(Object.keys(body.properties)).toEqual(['message', 'conversationId', 'inputs', 'typedInputs', 'tiers', 'aliases', 'config', 'codebaseId', 'budget', 'branch', 'baseBranch']);
  expect(body.additionalProperties).toBe(false);
  expect(body.properties.inputs.additionalProperties).toEqual({ type: 'string' });
  // Typed values beside the contract's strings: any of text, number, boolean, array, object.
  expect(body.properties.typedInputs.additionalProperties.anyOf.map((s: { type: string }) => s.type)).toEqual(['string', 'number', 'boolean', 'array', 'object']);
  expect(Object.keys(body.properties.config.properties)).toEqual([
    'assistant', 'defaultAssistant', 'assistants', 'tiers', 'aliases', 'workflows', 'docs', 'env',
  ]);
  expect(start.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`).sort()).toEqual(['path:name', 'query:cwd']);
  expect(Object.keys(start.responses).sort()).toEqual(['200', '400', '403', '404', '409', '413', '415', '421']);
  const multipart = start.requestBody.content['multipart/form-data'].schema;
  expect(Object.keys(multipart.properties)).toEqual(['message', 'conversationId', 'inputs', 'typedInputs', 'config', 'tiers', 'aliases', 'codebaseId', 'budget', 'branch', 'baseBranch', 'files']);
  expect(multipart.properties.files.items).toMatchObject({ type: 'string', format: 'binary' });
  expect(start.responses['200'].content['application/json'].schema.required).toEqual(['accepted', 'runId', 'conversationId', 'status']);
});

it('describes the run list query and the run detail events from the schemas that validate them', async () => {
  const { app } = await makeTestApp(home);
  const doc = (await app.inject({ url: '/api/openapi.json' })).json();
  const list = doc.paths['/api/workflows/runs'].get;
  expect(list.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort()).toEqual([
    'query:codebaseId',
    'query:conversationId',
    'query:cursor',
    'query:limit',
    'query:mine',
    'query:status',
    'query:workflow',
  ]);
  const detail = doc.paths['/api/workflows/runs/{runId}'].get;
  expect(Object.keys(detail.responses)).toEqual(expect.arrayContaining(['200', '400', '404']));
  expect(detail.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort()).toEqual([
    'path:runId',
    'query:afterSeq',
    'query:limit',
  ]);
  expect(detail.responses['200'].content['application/json'].schema.required).toEqual(['run', 'events', 'nextAfterSeq']);
  const metadata = doc.components.schemas.WorkflowRun.properties.metadata;
  expect(Object.keys(metadata.properties)).toEqual([
    'workflow_source', 'workflow_filename', 'parse_warnings', 'isolation', 'base_branch', 'state_dir', 'overrides', 'sealed_env', 'model_bindings', 'attachments',
    'hook', 'github', 'concurrency', 'parent_conversation_id', 'parent_node_id', 'child_index', 'approval', 'rejections', 'budget', 'budget_scope', 'descendants_cost_usd', 'budget_pause', 'auto_resume', 'auto_resumes', 'totals', 'total_cost_usd', 'total_tokens_in', 'total_tokens_out',
    'total_cache_read_tokens', 'total_cache_write_tokens', 'total_cache_partial', 'total_tokens_incomplete', 'unreadable',
  ]);
  expect(Object.keys(metadata.properties.totals.properties)).toEqual(expect.arrayContaining(['total_cost_usd', 'counted']));
  for (const op of ['approve', 'reject']) {
    const answer = doc.paths[`/api/workflows/runs/{runId}/${op}`].post;
    expect(Object.keys(answer.responses)).toEqual(expect.arrayContaining(['200', '400', '404']));
  }
  const event = doc.components.schemas.RunEvent;
  expect(event.properties.cost_scope.enum).toEqual(['own', 'total']);
  const stream = doc.paths['/api/stream/{conversationId}'].get;
  expect(Object.keys(stream.responses['200'].content)).toEqual(['text/event-stream']);
  expect(stream.parameters.map((p: { name: string }) => p.name)).toEqual(
    expect.arrayContaining(['last-event-id', 'lastEventId', 'conversationId']),
  );
});

it('lists the workflow-definition, command and provider routes with their schemas', async () => {
  const { app } = await makeTestApp(home);
  const doc = (await app.inject({ url: '/api/openapi.json' })).json();
  expect(openApi30Problems(doc)).toEqual([]);
  const paths = doc.paths;
  expect(Object.keys(paths['/api/workflows'])).toEqual(['get']);
  expect(Object.keys(paths['/api/workflows/{name}']).sort()).toEqual(['delete', 'get', 'put']);
  expect(Object.keys(paths['/api/workflows/validate'])).toEqual(['post']);
  expect(Object.keys(paths['/api/commands'])).toEqual(['get']);
  expect(Object.keys(paths['/api/providers'])).toEqual(['get']);

  const params = (op: { parameters: { in: string; name: string }[] }) => op.parameters.map((p) => `${p.in}:${p.name}`).sort();
  expect(params(paths['/api/workflows'].get)).toEqual(['query:cwd']);
  expect(params(paths['/api/workflows/{name}'].put)).toEqual(['path:name', 'query:cwd', 'query:source']);
  const source = paths['/api/workflows/{name}'].delete.parameters.find((p: { name: string }) => p.name === 'source');
  expect(source.schema.enum).toEqual(['project', 'global']);

  const save = paths['/api/workflows/{name}'].put;
  expect(save.requestBody.required).toBe(true);
  expect(save.requestBody.content['application/json'].schema.required).toEqual(['definition']);
  expect(Object.keys(save.responses).sort()).toEqual(['200', '400', '403', '413', '415', '421']);

  const list = paths['/api/workflows'].get.responses['200'].content['application/json'].schema;
  expect(list.required).toEqual(['workflows', 'recommended']);
  expect(Object.keys(list.properties.workflows.items.properties)).toEqual(['workflow', 'source', 'filename', 'parseWarnings']);
  expect(doc.components.schemas.Workflow.required).toEqual(['name', 'description', 'nodes']);
  const validate = paths['/api/workflows/validate'].post.responses['200'].content['application/json'].schema;
  expect(validate.anyOf ?? validate.oneOf).toHaveLength(2);
  const provider = paths['/api/providers'].get.responses['200'].content['application/json'].schema.properties.providers.items;
  expect(Object.keys(provider.properties)).toEqual(['id', 'displayName', 'capabilities', 'builtIn']);
  expect(doc.components.schemas.Error.properties.errors.type).toBe('array');
});

it('lists every route fastify registered, with its path parameters and error answers', async () => {
  const { app } = await makeTestApp(home);
  const doc = (await app.inject({ url: '/api/openapi.json' })).json();
  const missing: string[] = [];
  const undocumentedErrors: string[] = [];
  expect(app.routeTable.length).toBeGreaterThan(30);
  for (const route of app.routeTable) {
    if (route.hidden) {
      // Not API routes: the document itself, and the dashboard's page and files (docs/dashboard.md).
      expect(['/api/openapi.json', ...DASHBOARD_PAGES, DASHBOARD_ASSETS]).toContain(route.url);
      continue;
    }
    // fastify's /:name and /* become OpenAPI's /{name} and /{*}.
    const path = route.url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{*}');
    const operation = doc.paths[path]?.[route.method.toLowerCase()];
    if (!operation) {
      missing.push(`${route.method} ${path}`);
      continue;
    }
    const statuses = Object.keys(operation.responses);
    if (!statuses.some((s) => s.startsWith('2'))) undocumentedErrors.push(`${route.method} ${path}: no 2xx`);
    const takesInput = (operation.parameters ?? []).length > 0 || operation.requestBody !== undefined;
    if (takesInput && !statuses.some((s) => s.startsWith('4'))) undocumentedErrors.push(`${route.method} ${path}: no 4xx`);
    for (const name of [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])) {
      if (!operation.parameters?.some((p: { in: string; name: string }) => p.in === 'path' && p.name === name)) {
        missing.push(`${route.method} ${path}: path parameter ${name}`);
      }
    }
  }
  expect(missing).toEqual([]);
  expect(undocumentedErrors).toEqual([]);
  expect(openApi30Problems(doc)).toEqual([]);
});

it('describes the model configuration, per-user preference and model catalog routes', async () => {
  const { app } = await makeTestApp(home);
  const doc = (await app.inject({ url: '/api/openapi.json' })).json();
  const paths = doc.paths;
  const body = (op: any) => op.requestBody.content['application/json'].schema;
  const answer = (op: any) => op.responses['200'].content['application/json'].schema;
  expect(Object.keys(paths['/api/config'])).toEqual(['get']);
  expect(answer(paths['/api/config'].get).required).toEqual(['assistant', 'assistants', 'tiers', 'tierDefaults', 'aliases']);
  for (const kind of ['assistants', 'tiers', 'aliases']) {
    const op = paths[`/api/config/${kind}`].patch;
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '403', '415', '421']);
    expect(answer(op).required).toEqual(['assistant', 'assistants', 'tiers', 'tierDefaults', 'aliases']);
  }
  expect(Object.keys(body(paths['/api/config/assistants'].patch).properties)).toEqual(['assistant', 'assistants']);
  expect(Object.keys(body(paths['/api/config/tiers'].patch).properties)).toEqual(['tiers']);
  expect(Object.keys(body(paths['/api/config/tiers'].patch).properties.tiers.properties)).toEqual(['small', 'medium', 'large']);
  expect(Object.keys(body(paths['/api/config/aliases'].patch).properties)).toEqual(['aliases']);

  expect(Object.keys(paths['/api/auth/me/ai-prefs'])).toEqual(['get']);
  expect(Object.keys(answer(paths['/api/auth/me/ai-prefs'].get).properties)).toEqual(['tiers', 'aliases', 'defaultProvider', 'defaultModel']);
  for (const kind of ['tiers', 'aliases', 'default']) {
    const op = paths[`/api/auth/me/ai-prefs/${kind}`].patch;
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '415', '421']);
    expect(Object.keys(answer(op).properties)).toEqual(['tiers', 'aliases', 'defaultProvider', 'defaultModel']);
  }
  expect(Object.keys(paths['/api/auth/me/ai-prefs'].get.responses).sort()).toEqual(['200', '400', '401', '421']);

  const models = paths['/api/providers/{vendor}/models'].get;
  expect(answer(models).items.$ref).toBe('#/components/schemas/ModelInfo');
  expect(Object.keys(doc.components.schemas.ModelInfo.properties)).toEqual([
    'id', 'displayName', 'vendor', 'reasoning', 'contextWindow', 'inputUsdPerMTok', 'outputUsdPerMTok', 'source',
  ]);
});

it('describes the credential routes: metadata-only answers and the bodies they take', async () => {
  const { app } = await makeTestApp(home);
  const doc = (await app.inject({ url: '/api/openapi.json' })).json();
  const paths = doc.paths;
  expect(Object.keys(paths['/api/auth/providers'])).toEqual(['get']);
  expect(Object.keys(paths['/api/auth/providers/{provider}']).sort()).toEqual(['delete', 'put']);
  expect(Object.keys(paths['/api/auth/providers/{provider}/oauth/start'])).toEqual(['post']);
  expect(Object.keys(paths['/api/auth/providers/{provider}/oauth/poll'])).toEqual(['post']);
  const list = paths['/api/auth/providers'].get.responses['200'].content['application/json'].schema;
  expect(Object.keys(list.properties)).toEqual(['enabled', 'connections', 'available', 'subscriptionAvailable', 'agents']);
  expect(Object.keys(doc.components.schemas.CredentialConnection.properties)).toEqual(['provider', 'kind', 'label']);
  expect(Object.keys(list.properties.agents.items.properties)).toEqual(['id', 'displayName', 'catalog', 'ready', 'credentials']);
  expect(Object.keys(list.properties.agents.items.properties.credentials.items.properties)).toEqual([
    'vendor', 'displayName', 'kinds', 'connected', 'subscriptionAvailable', 'installEnv', 'ambientConfigured',
  ]);
  const put = paths['/api/auth/providers/{provider}'].put;
  expect(Object.keys(put.requestBody.content['application/json'].schema.properties)).toEqual(['apiKey', 'label']);
  expect(Object.keys(put.responses['200'].content['application/json'].schema.properties)).toEqual(['success', 'provider', 'kind', 'label']);
  expect(Object.keys(put.responses).sort()).toEqual(['200', '400', '401', '403', '413', '415', '421']);
  const start = paths['/api/auth/providers/{provider}/oauth/start'].post;
  expect(Object.keys(start.responses['200'].content['application/json'].schema.properties)).toEqual([
    'sessionId', 'mode', 'url', 'userCode', 'verificationUri', 'verificationUriComplete', 'interval', 'expiresIn',
  ]);
  const poll = paths['/api/auth/providers/{provider}/oauth/poll'].post;
  expect(Object.keys(poll.requestBody.content['application/json'].schema.properties)).toEqual(['sessionId', 'code']);
  expect(Object.keys(poll.responses['200'].content['application/json'].schema.properties)).toEqual(['status', 'detail']);
});

it('lists the caller refusals: 421 on every operation, 403 on every write', async () => {
  const { app } = await makeTestApp(home);
  const doc = (await app.inject({ url: '/api/openapi.json' })).json();
  const missing: string[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, operation] of Object.entries<Record<string, any>>(item)) {
      if (operation.responses['421']?.content['application/json'] === undefined) missing.push(`${method} ${path}: 421`);
      const isWrite = ['post', 'put', 'patch', 'delete'].includes(method);
      if (isWrite !== (operation.responses['403'] !== undefined)) missing.push(`${method} ${path}: 403`);
    }
  }
  expect(missing).toEqual([]);
});
