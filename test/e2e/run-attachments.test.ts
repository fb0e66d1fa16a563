import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, writeHomeWorkflow } from '../helpers/workflows.js';

/** The built server and a real supervisor: attachments reach a node through $ATTACHMENTS_DIR, and resume keeps the binding layer. */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('hands multipart attachments to a node as $ATTACHMENTS_DIR, and resume reuses model_bindings unchanged', async () => {
  const server = await startServer(home);
  await writeHomeWorkflow(
    home,
    'read-notes',
    [
      'name: read-notes',
      'description: reads an attachment',
      'nodes:',
      '  - id: read',
      '    bash: cat "$ATTACHMENTS_DIR/notes.txt"',
      '  - id: gate',
      '    bash: test -f "$ARTIFACTS_DIR/pass" || exit 1',
      '    depends_on: [read]',
    ].join('\n'),
  );
  const form = new FormData();
  form.append('message', 'go');
  form.append('tiers', JSON.stringify({ large: 'claude/opus' }));
  form.append('config', JSON.stringify({ assistant: 'claude', env: { TOKEN: 'sekret' } }));
  form.append('files', new Blob(['from the attachment']), 'notes.txt');
  const res = await fetch(`${server.url}/api/workflows/read-notes/run`, { method: 'POST', body: form });
  expect(res.status).toBe(200);
  const { runId } = (await res.json()) as { runId: string };

  const failed = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return detail.run.status === 'failed' ? detail : undefined;
  }, { what: 'the run to fail at its gate', timeoutMs: 45_000 });
  const read = failed.events.find((e) => e.event_type === 'node_completed' && e.step_name === 'read');
  expect((read?.data as { node_output?: string }).node_output).toBe('from the attachment');
  const bindings = (failed.run.metadata as Record<string, unknown>).model_bindings;
  expect(bindings).toEqual({ assistant: 'claude', tiers: { large: 'claude/opus' }, aliases: {}, source: { 'tiers.large': 'request', assistant: 'config' } });
  expect(JSON.stringify(failed)).not.toContain('sekret');

  // Resume: the stored layer is reused as it is (resume takes no replacement content).
  const { writeFile } = await import('node:fs/promises');
  await writeFile(`${home.paths.runArtifacts(runId)}/pass`, '');
  const resumed = await fetch(`${server.url}/api/workflows/runs/${runId}/resume`, { method: 'POST' });
  expect(resumed.status).toBe(200);
  const done = await waitFor(async () => {
    const detail = await getRun(server.url, runId);
    return detail.run.status === 'completed' ? detail : undefined;
  }, { what: 'the resumed run to complete', timeoutMs: 45_000 });
  expect((done.run.metadata as Record<string, unknown>).model_bindings).toEqual(bindings);
});
