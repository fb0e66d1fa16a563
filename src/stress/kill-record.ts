/** What `cairn stress` kills, and what it wrote down about each kill. */

/** The processes a kill may target. */
export const killKinds = ['supervisor', 'api', 'launcher', 'helper'] as const;
export type KillKind = (typeof killKinds)[number];

/** `--kill`: one kind, or `random` (a seeded choice among the kinds alive at that moment). */
export const killChoices = [...killKinds, 'random'] as const;
export type KillChoice = (typeof killChoices)[number];

/** Kinds whose death cuts node attempts short: a re-run is explained only by one of these. */
export const interruptingKinds: ReadonlySet<KillKind> = new Set(['supervisor', 'launcher', 'helper']);

export interface KillRecord {
  index: number;
  kind: KillKind;
  /** The pid that got SIGKILL; 0 when the kill did not land. */
  pid: number;
  /** When SIGKILL was sent, ms since the epoch (the server's event times use the same clock). */
  atMs: number;
  /**
   * Until when the kill's effect lasted: for a launcher kill, until its API and supervisor were
   * gone (the supervisor stops by itself once its launcher died, interrupting what it runs, and
   * may start an attempt meanwhile); for the others, the moment of the kill.
   */
  effectUntilMs: number;
  landed: boolean;
  /** How long until the server answered again with a live supervisor. */
  recoveredMs?: number;
  /** Why a kill did not land, or what it left behind. */
  note?: string;
}
