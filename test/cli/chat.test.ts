import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAiServer } from '../helpers/openai-server.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { assertBuilt, userCliEnv } from './cli-process.js';
import { sh } from './shell-line.js';

/**
 * `cairn chat` as a user runs it, lines piped in: the real `cairn serve`, its default assistant an
 * OpenAI-compatible server set in config.yaml, and the built CLI. Each line is one message,
 * answered (streamed) before the next is sent; slash commands are the server's; /quit leaves.
 */

const checkout = new URL('../../', import.meta.url).pathname;
let home: TempHome;
beforeAll(assertBuilt);

describe('cairn chat with a local model (own server: its config.yaml names the model)', () => {
  beforeEach(async () => {
    home = await makeTempHome();
  });
  afterEach(async () => {
    await home.close();
  });

  it('sends each line as a message, streams each answer before the next line, and leaves at /quit', async () => {
    const model = await startOpenAiServer((_req, i) => ({ kind: 'stream', deltas: ['Hello', ' from', ` a local model (${i + 1}).`] }));
    home.defer(() => model.close());
    writeFileSync(home.paths.config, `defaultAssistant: openai-compatible\nassistants:\n  openai-compatible:\n    baseUrl: ${model.url}\n    model: local-model\n`);
    const server = await startServer(home);
    const pwned = join(home.home, 'pwned');
    const hostile = `it's "quoted" $(touch ${pwned}) \`id\``;
    const input = ['/help', 'hi there', hostile, '/quit', 'never sent'].join('\n');
    const res = await sh(`printf '%s\\n' "$INPUT" | node bin/cairn.js chat`, checkout, userCliEnv(home.home, { INPUT: input }));

    expect(res.code, res.stderr).toBe(0);
    const id = /^Conversation (\S+)\. Type \/help/m.exec(res.stderr)?.[1];
    expect(id).toBeDefined();
    // The server's /help, then the two answers in order, each whole.
    expect(res.stdout).toContain('- /help — this list');
    const first = res.stdout.indexOf('Hello from a local model (1).');
    const second = res.stdout.indexOf('Hello from a local model (2).');
    expect(first).toBeGreaterThan(res.stdout.indexOf('- /help'));
    expect(second).toBeGreaterThan(first);
    // What was sent: every line up to /quit, the hostile one as it was typed; nothing ran.
    const messages = (await (await fetch(`${server.url}/api/conversations/${id}/messages?limit=50`)).json()) as { role: string; content: string }[];
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['/help', 'hi there', hostile]);
    expect(model.requests).toHaveLength(2);
    expect(existsSync(pwned)).toBe(false);
  });
});

describe('cairn chat on the default config (one server: neither test starts a workflow)', () => {
  beforeAll(async () => {
    home = await makeTempHome();
    await startServer(home);
  });
  afterAll(() => home.close());

  it('binds the conversation to a codebase with --codebase, and names an unknown one', async () => {
    const res = await sh(`printf 'hi\\n' | node bin/cairn.js chat --codebase no/such`, checkout, userCliEnv(home.home));
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('Codebase not found');
  });

  it("runs docs/cli.md's chat example as written: /status answers, /quit leaves", async () => {
    const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const section = doc.split('\n## cairn chat\n')[1]!.split('\n## ')[0]!;
    const [example] = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
    expect(example).toContain('cairn chat');
    const res = await sh(example!.replace(/cairn chat/, 'node bin/cairn.js chat'), checkout, userCliEnv(home.home));
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^Conversation: \S+$/m);
    expect(res.stdout).toContain('Workflows running: 0');
  });
});
