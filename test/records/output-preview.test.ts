import { describe, expect, it } from 'vitest';
import { buildOutput, OUTPUT_PREVIEW_MAX_BYTES, previewOutput, storedOutput } from '../../src/records/output-preview.js';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

describe('output preview (32 KiB of UTF-8)', () => {
  it('keeps a text that fits, whole and unmarked', () => {
    const text = 'x'.repeat(OUTPUT_PREVIEW_MAX_BYTES);
    expect(previewOutput(text)).toEqual({ text, truncated: false });
    expect(previewOutput('')).toEqual({ text: '', truncated: false });
  });

  it('cuts an ASCII text at exactly 32 KiB and reports the original size', () => {
    const text = 'y'.repeat(OUTPUT_PREVIEW_MAX_BYTES + 10);
    const preview = previewOutput(text);
    expect(preview).toEqual({ text: 'y'.repeat(OUTPUT_PREVIEW_MAX_BYTES), truncated: true, originalBytes: OUTPUT_PREVIEW_MAX_BYTES + 10 });
  });

  it.each([
    ['two-byte', 'é'],
    ['three-byte', '€'],
    ['four-byte (surrogate pair)', '😀'],
  ])('never splits a %s character', (_name, char) => {
    for (const lead of ['', 'a', 'ab', 'abc']) {
      const text = lead + char.repeat(20_000);
      const preview = previewOutput(text);
      expect(preview.truncated).toBe(true);
      expect(bytes(preview.text)).toBeLessThanOrEqual(OUTPUT_PREVIEW_MAX_BYTES);
      expect(bytes(preview.text)).toBeGreaterThan(OUTPUT_PREVIEW_MAX_BYTES - bytes(char));
      expect(text.startsWith(preview.text)).toBe(true);
      expect(preview.text).not.toContain('\uFFFD');
      expect(preview.originalBytes).toBe(bytes(text));
    }
  });
});

describe('output group', () => {
  it('has no persisted facts when the whole text is stored', () => {
    expect(buildOutput({ text: 'ok', structured: { a: 1 } })).toEqual({ text: 'ok', structured: { a: 1 } });
  });

  it('mirrors a cut in persisted and keeps the full text for the running run', () => {
    const text = 'z'.repeat(OUTPUT_PREVIEW_MAX_BYTES + 1);
    const output = buildOutput({ text });
    expect(output.text).toBe(text);
    expect(output.persisted).toEqual({ text: 'z'.repeat(OUTPUT_PREVIEW_MAX_BYTES), truncated: true, originalBytes: OUTPUT_PREVIEW_MAX_BYTES + 1 });
  });

  it('records a spill file, with the byte count the file must have', () => {
    expect(buildOutput({ text: 'héllo', spillPath: 'nodes/build.out' }).persisted).toEqual({
      text: 'héllo',
      truncated: false,
      originalBytes: 6,
      spillPath: 'nodes/build.out',
    });
  });

  it('keeps persisted facts it is given (an output read back from a row)', () => {
    const persisted = { text: 'head', truncated: true, originalBytes: 99 };
    expect(buildOutput({ text: 'head', persisted })).toEqual({ text: 'head', persisted });
  });

  it('stores the preview, never the full text', () => {
    const text = 'w'.repeat(OUTPUT_PREVIEW_MAX_BYTES * 3);
    expect(storedOutput(buildOutput({ text })).text).toHaveLength(OUTPUT_PREVIEW_MAX_BYTES);
    const raw = storedOutput({ text });
    expect(raw.text).toHaveLength(OUTPUT_PREVIEW_MAX_BYTES);
    expect(raw.persisted).toEqual({ text: raw.text, truncated: true, originalBytes: text.length });
    const small = { text: 'ok' };
    expect(storedOutput(small)).toBe(small);
  });
});
