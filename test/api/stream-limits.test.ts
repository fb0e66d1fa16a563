import { expect, it } from 'vitest';
import { ASSUMED_OPEN_FILES_LIMIT, resolveStreamLimits } from '../../src/api/sse/stream-limits.js';

it('derives the caps from the open-file limit, keeping a quarter (at least 128) for everything else', () => {
  expect(resolveStreamLimits({}, 1024)).toEqual({ maxStreams: 768, maxStreamsPerClient: 384, openFilesLimit: 1024, descriptorCap: 768 });
  expect(resolveStreamLimits({}, 20_000)).toMatchObject({ maxStreams: 10_000, maxStreamsPerClient: 5_000, descriptorCap: 15_000 });
  expect(resolveStreamLimits({}, undefined)).toMatchObject({ maxStreams: 128, maxStreamsPerClient: 64, openFilesLimit: ASSUMED_OPEN_FILES_LIMIT });
});

it('takes the configured caps, never above what the limit allows, and says which it lowered', () => {
  expect(resolveStreamLimits({ max: 50, maxPerClient: 10 }, 1024)).toEqual({ maxStreams: 50, maxStreamsPerClient: 10, openFilesLimit: 1024, descriptorCap: 768 });
  expect(resolveStreamLimits({ max: 5_000 }, 1024)).toMatchObject({ maxStreams: 768, maxStreamsPerClient: 768 / 2, lowered: { setting: 'max', configured: 5_000 } });
  expect(resolveStreamLimits({ max: 20, maxPerClient: 30 }, 1024)).toMatchObject({ maxStreams: 20, maxStreamsPerClient: 20, lowered: { setting: 'maxPerClient', configured: 30 } });
});
