import { describe, expect, it } from 'vitest';
import { withoutCredentials } from '../../src/codebases/remote-url.js';

describe('a remote URL without its credentials', () => {
  it('drops the whole user part of an HTTP URL: the user name may be the token', () => {
    expect(withoutCredentials('https://ghp_TOKEN@github.com/acme/private.git')).toBe('https://github.com/acme/private.git');
    expect(withoutCredentials('https://x-access-token:ghp_TOKEN@github.com/acme/private')).toBe('https://github.com/acme/private');
    expect(withoutCredentials('http://user:p%40ss@host:8080/o/r.git')).toBe('http://host:8080/o/r.git');
    expect(withoutCredentials('file://user:secret@/srv/git/o/r.git')).toBe('file:///srv/git/o/r.git');
  });

  it('keeps an ssh user and drops only its password', () => {
    expect(withoutCredentials('ssh://git@github.com/acme/r.git')).toBe('ssh://git@github.com/acme/r.git');
    expect(withoutCredentials('ssh://git:hunter2@github.com:22/acme/r.git')).toBe('ssh://git@github.com:22/acme/r.git');
  });

  it('leaves URLs without credentials, scp-like remotes and local paths as they are', () => {
    for (const url of ['https://github.com/acme/r.git', 'git@github.com:acme/r.git', '/srv/git/acme/r.git', 'file:///srv/git/acme/r.git']) {
      expect(withoutCredentials(url)).toBe(url);
    }
  });

  it('redacts every URL a git message quotes', () => {
    expect(withoutCredentials("fatal: repository 'https://tok@github.com/a/b/' not found; tried https://u:p@h/x")).toBe(
      "fatal: repository 'https://github.com/a/b/' not found; tried https://h/x",
    );
  });
});
