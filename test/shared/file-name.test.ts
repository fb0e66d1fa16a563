import { describe, expect, it } from 'vitest';
import { fileNameFor, MAX_FILE_NAME_BYTES } from '../../src/shared/file-name.js';

describe('fileNameFor', () => {
  it('keeps a name that fits as its percent-encoding, as before', () => {
    expect(fileNameFor('review[2]/lint')).toBe('review%5B2%5D%2Flint');
    expect(fileNameFor('x'.repeat(MAX_FILE_NAME_BYTES))).toBe('x'.repeat(MAX_FILE_NAME_BYTES));
  });

  it('cuts a longer one to the limit, its start kept and a hash of the whole appended', () => {
    const long = `${'a'.repeat(100)}__${'b'.repeat(100)}__${'c'.repeat(100)}`;
    const name = fileNameFor(long);
    expect(name.length).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
    expect(name).toMatch(/^a{100}__b{100}__c+~[0-9a-f]{16}$/);
    // Texts that differ only past the cut get different names; the same text the same one.
    expect(fileNameFor(`${long}d`)).not.toBe(name);
    expect(fileNameFor(long)).toBe(name);
  });

  it('never ends the kept start inside a percent escape', () => {
    for (let pad = 0; pad < 3; pad++) {
      const name = fileNameFor(`${'x'.repeat(pad)}${'/'.repeat(200)}`);
      expect(name.split('~')[0]).toMatch(/^x*(%2F)+$/);
    }
  });
});
