import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { listen, makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { multipartForm } from '../../helpers/multipart-form.js';

/** Multipart chat messages over a real socket: the message, its files, their limits. */

let home: TempHome;
let t: TestApp;
let url: string;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  url = await listen(t.app);
});
afterEach(async () => {
  await home.close();
});

const form = multipartForm;

async function send(id: string, data: FormData): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${url}/api/conversations/${id}/message`, { method: 'POST', body: data });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const filesRoot = () => join(home.home, 'conversations');
const uploadsLeft = () => (existsSync(join(home.home, 'tmp', 'uploads')) ? readdirSync(join(home.home, 'tmp', 'uploads')) : []);

it('stores a message with its files under the conversation and lists them in the metadata', async () => {
  const answer = await send('web-1-abc', form({ message: 'see the log' }, [
    { name: 'build.log', bytes: 'line 1\n' },
    { name: '../../etc/passwd', bytes: 'not a path', type: 'application/octet-stream' },
  ]));
  expect(answer).toEqual({ status: 200, body: { accepted: true, status: 'started' } });
  const conversation = (await t.store.getConversation('web-1-abc'))!;
  const [message] = await t.store.listMessages(conversation.id, 10);
  expect(message!.content).toBe('see the log');
  const files = JSON.parse(message!.metadata).files as { name: string; mimeType: string; size: number }[];
  expect(files.map((f) => [f.mimeType, f.size])).toEqual([['text/plain', 7], ['application/octet-stream', 10]]);
  // Hostile names are made safe: every stored file lies inside the conversation's folder.
  const [upload] = readdirSync(join(filesRoot(), 'web-1-abc', 'files'));
  const stored = readdirSync(join(filesRoot(), 'web-1-abc', 'files', upload!)).sort();
  expect(stored).toEqual(files.map((f) => f.name).sort());
  expect(stored.every((name) => !name.includes('/') && !name.startsWith('.'))).toBe(true);
  expect(await readFile(join(filesRoot(), 'web-1-abc', 'files', upload!, files[0]!.name), 'utf8')).toBe('line 1\n');
  expect(uploadsLeft()).toEqual([]);
});

it('refuses a sixth file, an empty message and a bad id, keeping nothing', async () => {
  const six = Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.txt`, bytes: 'x' }));
  const tooMany = await send('web-2-abc', form({ message: 'hi' }, six));
  expect(tooMany.status).toBe(413);
  expect(tooMany.body.error).toBe('Too many files: a message takes at most 5 attachments');
  const empty = await send('web-2-abc', form({ message: '  ' }, [{ name: 'a.txt', bytes: 'x' }]));
  expect(empty).toMatchObject({ status: 400, body: { error: 'message must be a non-empty string' } });
  const badId = await send('a.b', form({ message: 'hi' }));
  expect(badId).toMatchObject({ status: 400, body: { error: 'Invalid conversation ID' } });
  expect(await t.store.getConversation('web-2-abc')).toBeUndefined();
  expect(existsSync(filesRoot())).toBe(false);
  expect(uploadsLeft()).toEqual([]);
});

it('refuses a file over 10 MB with the limit in the message', async () => {
  const big = new Uint8Array(10 * 1024 * 1024 + 1);
  const res = await send('web-3-abc', form({ message: 'hi' }, [{ name: 'big.bin', bytes: big }]));
  expect(res.status).toBe(413);
  expect(res.body.error).toContain('10 MB');
  expect(await t.store.getConversation('web-3-abc')).toBeUndefined();
  expect(uploadsLeft()).toEqual([]);
});
