import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveRunCodebase } from '../../src/api/run-target/run-codebase.js';
import type { Store } from '../../src/store/store.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

/** Which registered codebase a run request's `cwd` binds to, on a real store and real folders. */

let home: TempHome;
let store: Store;
let root: string;
beforeEach(async () => {
  home = await makeTempHome();
  store = home.openStore();
  root = await realpath(await mkdtemp(join(tmpdir(), 'cairn-run-codebase-')));
});
afterEach(async () => {
  await store.close();
  await home.close();
  await rm(root, { recursive: true, force: true });
});

async function register(id: string, defaultCwd: string): Promise<void> {
  await store.registerCodebase({
    id, name: id, repository_url: null, default_cwd: defaultCwd, default_branch: null, kind: 'folder', managed: false,
    env_scan: { status: 'clean', files: [], keys: [], scanned_at: new Date().toISOString() },
  });
}

describe('resolveRunCodebase by cwd', () => {
  it('finds the checkout by its path or through a symlink to it, a checkout stored under a since-symlinked path, and nothing else', async () => {
    for (const name of ['alpha', 'beta', 'moved']) await mkdir(join(root, name));
    await register('cb-alpha', join(root, 'alpha'));
    await register('cb-beta', join(root, 'beta'));
    // Registered under a path that is now a symlink to where the checkout moved.
    await symlink(join(root, 'moved'), join(root, 'old-place'));
    await register('cb-moved', join(root, 'old-place'));
    await symlink(join(root, 'beta'), join(root, 'beta-link'));

    const bound = async (cwd: string) => (await resolveRunCodebase(store, { cwd, codebaseId: undefined }))?.codebaseId;
    expect(await bound(join(root, 'alpha'))).toBe('cb-alpha');
    expect(await bound(join(root, 'beta-link'))).toBe('cb-beta');
    expect(await bound(join(root, 'moved'))).toBe('cb-moved');
    expect(await bound(root)).toBeUndefined();
    expect(await bound(join(root, 'no-such-folder'))).toBeUndefined();
  });
});
