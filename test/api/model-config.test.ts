import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

let home: TempHome;
let t: TestApp;
let configFile: string;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  configFile = join(home.home, 'config.yaml');
});
afterEach(async () => {
  await home.close();
});

const patch = (url: string, payload: unknown) => t.app.inject({ method: 'PATCH', url, payload: payload as object });

describe('GET /api/config', () => {
  it('shows the built-in tier defaults of the default assistant and no connection settings', async () => {
    writeFileSync(configFile, 'assistants:\n  claude:\n    model: sonnet\n    apiKey: sk-never-shown-123\n    baseUrl: http://127.0.0.1:9/\n');
    const res = await t.app.inject({ url: '/api/config' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      assistant: 'claude',
      assistants: { claude: { model: 'sonnet' } },
      tiers: {},
      tierDefaults: {
        small: { provider: 'claude', model: 'haiku' },
        medium: { provider: 'claude', model: 'sonnet' },
        large: { provider: 'claude', model: 'opus' },
      },
      aliases: {},
    });
    expect(res.body).not.toContain('sk-never-shown-123');
    expect(res.body).not.toContain('127.0.0.1');
  });

  it('answers a config file that does not parse with the line and column of the problem, never its lines', async () => {
    // Mis-indented right under the key: the YAML error's excerpt would show the key's line.
    writeFileSync(configFile, 'assistants:\n  claude:\n    apiKey: sk-never-shown-456\n   model: sonnet\n');
    const res = await t.app.inject({ url: '/api/config' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'CONFIG_INVALID' });
    expect(res.json().error).toMatch(/YAML parse error: .*line 4, column 1; fix the file by hand$/);
    expect(res.body).not.toContain('sk-never-shown-456');
  });

  it('follows the default assistant: codex’s tier defaults carry their effort', async () => {
    expect((await patch('/api/config/assistants', { assistant: 'codex' })).json().tierDefaults.small).toEqual({
      provider: 'codex', model: 'gpt-5.5', effort: 'minimal',
    });
  });
});

describe('PATCH /api/config/*', () => {
  it('merges tiers per key, null unsets, and keeps comments and keys Cairn does not know', async () => {
    writeFileSync(
      configFile,
      '# install settings, kept by hand\nbotName: Cairn # our bot\ntiers:\n  # the cheap one\n  small: claude/haiku\n',
      { mode: 0o640 },
    );
    const first = await patch('/api/config/tiers', { tiers: { large: { provider: 'codex', model: 'gpt-5.5', effort: 'high', thinking: 'adaptive' } } });
    expect(first.statusCode).toBe(200);
    expect(first.json().tiers).toEqual({ small: 'claude/haiku', large: { provider: 'codex', model: 'gpt-5.5', effort: 'high' } });
    const second = await patch('/api/config/tiers', { tiers: { small: null, medium: { provider: 'claude', model: 'sonnet' } } });
    expect(second.json().tiers).toEqual({ medium: { provider: 'claude', model: 'sonnet' }, large: { provider: 'codex', model: 'gpt-5.5', effort: 'high' } });
    const text = readFileSync(configFile, 'utf8');
    expect(text).toContain('# install settings, kept by hand');
    expect(text).toContain('botName: Cairn # our bot');
    expect(text).not.toContain('thinking');
    // It may hold keys: a rewrite keeps the owner's bits and drops the group's and others' (0640 → 0600).
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    // The whole file is valid YAML that the server still starts with.
    expect((await t.app.inject({ url: '/api/config' })).json().tiers.medium).toEqual({ provider: 'claude', model: 'sonnet' });
  });

  it('sets aliases and assistants, and unsets with null (an emptied map goes)', async () => {
    await patch('/api/config/aliases', { aliases: { '@fast': { provider: 'claude', model: 'haiku' }, '@deep': { provider: 'claude', model: 'opus', effort: 'max' } } });
    const res = await patch('/api/config/aliases', { aliases: { '@fast': null } });
    expect(res.json().aliases).toEqual({ '@deep': { provider: 'claude', model: 'opus', effort: 'max' } });
    await patch('/api/config/assistants', { assistants: { codex: { model: 'gpt-5' } } });
    const unset = await patch('/api/config/assistants', { assistants: { codex: { model: null } }, assistant: 'pi' });
    expect(unset.json()).toMatchObject({ assistant: 'pi', assistants: {} });
    expect(parse(readFileSync(configFile, 'utf8'))).toEqual({
      aliases: { '@deep': { provider: 'claude', model: 'opus', effort: 'max' } },
      defaultAssistant: 'pi',
    });
  });

  it.each([
    ['/api/config/tiers', { tiers: { huge: { provider: 'claude', model: 'x' } } }, "tiers: unknown tier 'huge'"],
    ['/api/config/tiers', { tiers: { small: { provider: 'nope', model: 'x' } } }, "tiers.small.provider: Unknown provider 'nope'"],
    ['/api/config/tiers', { tiers: { small: { provider: 'codex', model: 'gpt-5', effort: 'max' } } }, "tiers.small.effort: 'max' is not an effort of provider 'codex'"],
    ['/api/config/tiers', { tiers: { small: { provider: 'claude', model: 'a\u0000b' } } }, 'tiers.small.model must not contain control characters'],
    ['/api/config/tiers', { tiers: { small: { provider: 'claude', model: 'm'.repeat(5000) } } }, 'tiers.small.model is longer than 200 characters'],
    ['/api/config/tiers', { tiers: { small: 'claude/haiku' } }, 'tiers.small must be { provider, model, effort? } or null'],
    ['/api/config/aliases', { aliases: { fast: { provider: 'claude', model: 'haiku' } } }, "Alias name 'fast' must start with '@'"],
    ['/api/config/aliases', { aliases: { '@large': { provider: 'claude', model: 'haiku' } } }, "Alias name '@large' is reserved"],
    ['/api/config/aliases', { aliases: { '@../x': { provider: 'claude', model: 'haiku' } } }, 'may hold only letters'],
    ['/api/config/aliases', { aliases: { '@ok': { provider: 'openai-compatible', model: 'g', effort: 'high' } } }, "aliases.@ok.effort: provider 'openai-compatible' takes no effort"],
    ['/api/config/assistants', { assistant: "x'; DROP" }, "assistant: Unknown provider 'x'; DROP'"],
    ['/api/config/assistants', { assistants: { nope: { model: 'm' } } }, "assistants: Unknown provider 'nope'"],
    ['/api/config/assistants', {}, 'send { assistant } or { assistants }'],
  ])('%s refuses case %# with a 400 naming the field (%2$s), writing nothing', async (url, body, text) => {
    writeFileSync(configFile, '# untouched\n');
    const res = await patch(url, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain(text);
    expect(readFileSync(configFile, 'utf8')).toBe('# untouched\n');
  });

  it('refuses to rewrite a config file that is not valid YAML, leaving it as it was', async () => {
    writeFileSync(configFile, 'tiers: [unclosed\n');
    const res = await patch('/api/config/tiers', { tiers: { small: { provider: 'claude', model: 'haiku' } } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain('is not valid YAML');
    expect(readFileSync(configFile, 'utf8')).toBe('tiers: [unclosed\n');
  });

  it('writes model ids that look like YAML as plain strings, and lands concurrent patches both', async () => {
    const tricky = `it's "x": #y & *ref !!tag`;
    await Promise.all([
      patch('/api/config/tiers', { tiers: { small: { provider: 'claude', model: tricky } } }),
      patch('/api/config/aliases', { aliases: { '@odd': { provider: 'claude', model: '- [a, b]' } } }),
    ]);
    expect(parse(readFileSync(configFile, 'utf8'))).toEqual({
      tiers: { small: { provider: 'claude', model: tricky } },
      aliases: { '@odd': { provider: 'claude', model: '- [a, b]' } },
    });
    expect((await t.app.inject({ url: '/api/config' })).json().tiers.small.model).toBe(tricky);
  });

  it('needs no identity', async () => {
    expect((await patch('/api/config/tiers', { tiers: { small: { provider: 'claude', model: 'haiku' } } })).statusCode).toBe(200);
  });
});
