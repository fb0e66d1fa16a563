// The thread task of the test that registers the test kind: the real thread task over the
// built-in worker kinds plus the test's, added without editing src/. Bundled for Piscina by
// test/helpers/thread-bundle.ts.
import { createThreadTask } from '../../../../src/worker/thread/task.js';
import { workerKindTable } from '../../../../src/worker/nodes/worker-kinds.js';
import { shoutWorkerKind } from './worker-kind.js';

export default createThreadTask(workerKindTable([shoutWorkerKind]));
