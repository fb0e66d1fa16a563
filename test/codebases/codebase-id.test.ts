import { describe, expect, it } from 'vitest';
import { codebaseIdFromRemote, localCodebaseId } from '../../src/codebases/codebase-id.js';

describe('codebase ids', () => {
  it('derives owner/repo from every remote URL form, dropping .git', () => {
    for (const url of [
      'https://github.com/acme/widgets.git',
      'https://github.com/acme/widgets',
      'ssh://git@github.com:22/acme/widgets.git',
      'git@github.com:acme/widgets.git',
      'file:///srv/git/acme/widgets.git',
      '/srv/git/acme/widgets.git',
    ]) {
      expect(codebaseIdFromRemote(url)).toBe('acme/widgets');
    }
  });

  it('refuses a URL without two path segments and never yields .. as a segment', () => {
    expect(() => codebaseIdFromRemote('https://host/repo.git')).toThrow(/owner\/repo/);
    expect(() => codebaseIdFromRemote('git@host:../repo.git')).toThrow(/owner\/repo/);
  });

  it('gives a checkout without a remote a stable local id that no remote-derived id can equal', () => {
    const id = localCodebaseId('/home/me/proj');
    expect(id).toBe(localCodebaseId('/home/me/proj'));
    expect(id).not.toBe(localCodebaseId('/tmp/proj'));
    expect(id).toMatch(/^local\/proj@[0-9a-f]{12}$/);
    expect(codebaseIdFromRemote('https://h/local/proj@abc.git')).toBe('local/proj-abc');
  });
});
