/**
 * How soon the server counts a silent client's connection dead and ends its session: after
 * KEEPALIVE_IDLE_S of silence it checks every 2 s, and gives up after KEEPALIVE_COUNT checks go
 * unanswered, 10 to 15 s after a network split (the system's default is hours). Ending the
 * session frees what it held: a transaction cut off between two statements is rolled back (its
 * row locks would otherwise hold up the take-over of a run for as long), and the places of the
 * limits (slot-locks.ts) come free. 10 s at the least is after a supervisor cut off by the split
 * has ended its attempts: it fences itself within its renew deadline, 6 s by default, and gives
 * their processes the 3 s kill grace (supervisor/process/renew-deadline.ts).
 */
export const KEEPALIVE_IDLE_S = 5;
const KEEPALIVE_INTERVAL_S = 2;
const KEEPALIVE_COUNT = 5;

/** The statements that ask the server for these keepalives on one connection. */
export const SERVER_KEEPALIVE_SQL =
  `SET tcp_keepalives_idle = ${KEEPALIVE_IDLE_S}; SET tcp_keepalives_interval = ${KEEPALIVE_INTERVAL_S}; ` +
  `SET tcp_keepalives_count = ${KEEPALIVE_COUNT}`;
