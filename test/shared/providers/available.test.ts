import { describe, expect, it } from 'vitest';
import { listProviders } from '../../../src/shared/providers/registry.js';
import { providersResumingSessions, providersWithAdapter } from '../../../src/shared/providers/available.js';

/** What `GET /api/providers` promises about sessions is what the adapters do. */
describe('provider capabilities and adapters', () => {
  it('declares sessionResume for exactly the providers whose adapter continues a session', () => {
    for (const provider of listProviders()) {
      expect({ id: provider.id, resumes: providersResumingSessions.includes(provider.id) }).toEqual({
        id: provider.id,
        resumes: provider.capabilities.sessionResume,
      });
    }
    expect(providersResumingSessions.every((id) => providersWithAdapter.includes(id))).toBe(true);
  });
});
