import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMcpServers } from '../../../../src/worker/providers/common/mcp-config.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-mcp-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a node’s mcp file', () => {
  it('reads the servers relative to the working directory, in either shape, expanding $VAR and ${VAR} from the CLI’s environment', async () => {
    writeFileSync(join(dir, 'a.json'), JSON.stringify({ mcpServers: { docs: { command: 'node', args: ['s.js'], env: { TOKEN: '$TOKEN', B: 'x-${TOKEN}-${NOPE}' } } } }));
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ web: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } } }));
    const a = await loadMcpServers('a.json', dir, { TOKEN: 't0k' });
    expect(a).toEqual({ ok: true, servers: { docs: { command: 'node', args: ['s.js'], env: { TOKEN: 't0k', B: 'x-t0k-' } } }, missingVars: ['NOPE'] });
    const b = await loadMcpServers(join(dir, 'b.json'), '/elsewhere', { TOKEN: 't0k' });
    expect(b).toEqual({ ok: true, servers: { web: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer t0k' } } }, missingVars: [] });
  });

  it('names the file and the problem when it is missing, not JSON, not an object or a server is malformed', async () => {
    writeFileSync(join(dir, 'bad.json'), '{ nope');
    writeFileSync(join(dir, 'list.json'), '[1]');
    writeFileSync(join(dir, 'server.json'), JSON.stringify({ s: { args: [] } }));
    writeFileSync(join(dir, 'name.json'), JSON.stringify({ 'a b': { command: 'x' } }));
    const error = async (file: string) => {
      const r = await loadMcpServers(file, dir, {});
      return r.ok ? '' : r.error;
    };
    expect(await error('missing.json')).toMatch(/^the mcp file missing\.json does not exist/);
    expect(await error('bad.json')).toMatch(/^the mcp file bad\.json is not JSON/);
    expect(await error('list.json')).toMatch(/must hold a JSON object of servers/);
    expect(await error('server.json')).toMatch(/server 's' needs a 'command'/);
    expect(await error('name.json')).toMatch(/server name 'a b' may hold only/);
  });
});
