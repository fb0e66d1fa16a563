import { fileURLToPath } from 'node:url';

/** The built thread entry: Piscina loads plain JavaScript, so tests use dist/ (`npm test` builds first). */
export const builtTaskFile = fileURLToPath(new URL('../../dist/worker/thread/task-entry.cjs', import.meta.url));
