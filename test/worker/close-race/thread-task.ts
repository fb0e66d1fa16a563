// The thread task of the attempt-closer test: the real thread task over the built-in worker
// kinds plus the test's `die` kind. Bundled for Piscina by test/helpers/thread-bundle.ts.
import { createThreadTask } from '../../../src/worker/thread/task.js';
import { workerKindTable } from '../../../src/worker/nodes/worker-kinds.js';
import { dieWorkerKind } from './worker-kind.js';

export default createThreadTask(workerKindTable([dieWorkerKind]));
