import { describe } from 'vitest';
import { describeAvailabilityContract } from './contract/availability.js';
import { describeCodebaseContract, describeIsolationLockContract } from './contract/codebases.js';
import { describeConnectionContract } from './contract/connections.js';
import { describeConversationContract } from './contract/conversations.js';
import { describeCredentialContract } from './contract/credentials.js';
import { describeEventOrderContract } from './contract/event-order.js';
import { describeEventContract } from './contract/events.js';
import { describeHeartbeatContract } from './contract/heartbeats.js';
import { describeJobLeaseContract } from './contract/job-leases.js';
import { describeJobContract } from './contract/jobs.js';
import { describeRunContract } from './contract/runs.js';
import { describeChildRunContract } from './contract/child-runs.js';
import { describeSleepingRunContract } from './contract/sleeping-runs.js';
import { describeRunTotalsContract } from './contract/run-totals.js';
import { describeUserPrefsContract } from './contract/user-prefs.js';
import { describeNodeSessionContract } from './contract/node-sessions.js';
import { sqliteBackend } from './sqlite-backend.js';

/** The SQLite store passes the whole Store contract. */
describe('SQLite store', () => {
  describeConnectionContract(sqliteBackend);
  describeRunContract(sqliteBackend);
  describeJobContract(sqliteBackend);
  describeJobLeaseContract(sqliteBackend);
  describeSleepingRunContract(sqliteBackend);
  describeChildRunContract(sqliteBackend);
  describeRunTotalsContract(sqliteBackend);
  describeEventContract(sqliteBackend);
  describeEventOrderContract(sqliteBackend);
  describeHeartbeatContract(sqliteBackend);
  describeCodebaseContract(sqliteBackend);
  describeConversationContract(sqliteBackend);
  describeCredentialContract(sqliteBackend);
  describeIsolationLockContract(sqliteBackend);
  describeAvailabilityContract(sqliteBackend);
  describeUserPrefsContract(sqliteBackend);
  describeNodeSessionContract(sqliteBackend);
});
