import { describe, expect, it } from 'vitest';
import { parseRunMetadata, runMetadataSchema } from '../../../src/store/schemas/run-metadata.js';
import { pickRunOverrides } from '../../../src/store/schemas/run-overrides.js';

/** Reading `runs.metadata` as every version of Cairn may have written it. */
describe('parseRunMetadata', () => {
  it('reads what the run route writes, typed', () => {
    const stored = JSON.parse(
      JSON.stringify({
        workflow_source: 'project',
        workflow_filename: 'team/review.yaml',
        parse_warnings: ["Node 'a': unknown key 'foo' will be ignored."],
        overrides: { tiers: { large: { provider: 'anthropic', model: 'opus' } }, config: { env: { TOKEN: 'x' } } },
      }),
    );
    const metadata = parseRunMetadata(stored);
    expect(metadata).toEqual(stored);
    expect(metadata.parse_warnings?.[0]).toContain('foo');
    expect(metadata.overrides?.config?.env?.TOKEN).toBe('x');
    expect(runMetadataSchema.safeParse(metadata).success).toBe(true);
  });

  it('keeps keys it does not know, such as usage totals or a newer version’s keys', () => {
    const metadata = parseRunMetadata({ workflow_source: 'global', total_cost_usd: 0.5, future_key: { a: [1] } });
    expect(metadata).toEqual({ workflow_source: 'global', total_cost_usd: 0.5, future_key: { a: [1] } });
  });

  it('leaves out a known key in another shape and says what is wrong, without throwing', () => {
    const metadata = parseRunMetadata({
      workflow_source: 'codebase',
      parse_warnings: 'one warning',
      workflow_filename: 'ok.yaml',
    });
    expect(metadata.workflow_filename).toBe('ok.yaml');
    expect(metadata).not.toHaveProperty('parse_warnings');
    expect(metadata).not.toHaveProperty('workflow_source');
    expect(Object.keys(metadata.unreadable ?? {}).sort()).toEqual(['parse_warnings', 'workflow_source']);
    expect(metadata.unreadable?.parse_warnings).toMatch(/expected array, received string/);
    expect(metadata.unreadable?.workflow_source).toMatch(/project.*global.*bundled/);
  });

  it('names the field inside overrides, and never copies the unreadable value', () => {
    const metadata = parseRunMetadata({ overrides: { config: { env: { TOKEN: 12345 } } } });
    expect(metadata.overrides).toBeUndefined();
    expect(metadata.unreadable?.overrides).toContain("config.env value for 'TOKEN' must be a string");
    expect(JSON.stringify(metadata)).not.toContain('12345');
  });

  it('reports a value that is not an object at all', () => {
    expect(parseRunMetadata(null)).toEqual({ unreadable: { metadata: 'expected an object, found null' } });
    expect(parseRunMetadata(['a'])).toEqual({ unreadable: { metadata: 'expected an object, found an array' } });
  });

  it('gives the same answer when read again', () => {
    const once = parseRunMetadata({ parse_warnings: 3, extra: true, workflow_filename: 'a.yaml' });
    expect(parseRunMetadata(JSON.parse(JSON.stringify(once)))).toEqual(once);
  });
});

describe('pickRunOverrides', () => {
  it('keeps only the overrides a request gave, and none at all when it gave none', () => {
    expect(pickRunOverrides({ message: 'hi', inputs: {} })).toBeUndefined();
    expect(pickRunOverrides({ message: 'hi', tiers: { small: 'haiku' } })).toEqual({ tiers: { small: 'haiku' } });
  });

  it('keeps the names of config.env and never its values', () => {
    const picked = pickRunOverrides({ config: { assistant: 'claude', env: { API_TOKEN: 'sekret', B: '' } } });
    expect(picked).toEqual({ config: { assistant: 'claude' }, env_names: ['API_TOKEN', 'B'] });
    expect(JSON.stringify(picked)).not.toContain('sekret');
  });
});
