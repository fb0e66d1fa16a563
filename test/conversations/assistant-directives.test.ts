import { describe, expect, it } from 'vitest';
import { readDirectives } from '../../src/conversations/chat/assistant-directives.js';

/** The directive lines of an assistant's answer: recognised by shape only, hostile values refused. */
describe('readDirectives', () => {
  it('reads an /invoke-workflow line and keeps the rest as prose', () => {
    const read = readDirectives('Starting it now.\n/invoke-workflow fix-issue --project acme/app\nDone.');
    expect(read.invoke).toEqual({ rawName: 'fix-issue', rawProject: 'acme/app', name: 'fix-issue', project: 'acme/app' });
    expect(read.prose).toBe('Starting it now.\nDone.');
  });

  it('accepts a line without --project, and only the first invoke line counts', () => {
    const read = readDirectives('/invoke-workflow a\n/invoke-workflow b --project x/y');
    expect(read.invoke).toMatchObject({ name: 'a', project: undefined, rawProject: undefined });
  });

  it.each([
    ['../../x --project acme/app', { name: undefined, project: 'acme/app' }],
    ['$(id) --project acme/app', { name: undefined }],
    ['`id` --project acme/app', { name: undefined }],
    ['a/b --project acme/app', { name: undefined }],
    ['plain --project ../../etc', { name: 'plain', project: undefined }],
    ['plain --project $(id)', { name: 'plain', project: undefined }],
    ['plain --project acme/app; rm -rf /', { name: undefined, project: undefined }],
    ['plain extra words', { name: undefined }],
    ['', { name: undefined }],
  ])('refuses the shape of %j', (args, expected) => {
    expect(readDirectives(`/invoke-workflow ${args}`).invoke).toMatchObject(expected);
  });

  it('reads /register-project lines, keeping a path only when it holds no shell characters', () => {
    const read = readDirectives('/register-project site /srv/projects/site\n/register-project x $(rm -rf ~)\n/register-project y ../../etc');
    expect(read.register).toEqual([
      { name: 'site', path: '/srv/projects/site' },
      { name: 'x', path: undefined },
      { name: 'y', path: undefined },
    ]);
    expect(read.invoke).toBeUndefined();
    expect(read.prose).toBe('');
  });
});
