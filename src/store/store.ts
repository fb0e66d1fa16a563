import type { CodebaseStore } from './codebases.js';
import type { ConversationStore } from './conversations.js';
import type { CredentialStore } from './credentials.js';
import type { EventStore } from './events.js';
import type { HeartbeatStore } from './heartbeats.js';
import type { HookStore } from './hooks.js';
import type { JobStore } from './jobs.js';
import type { NodeSessionStore } from './node-sessions.js';
import type { GitHubWriteStore } from './github-writes.js';
import type { RunFileStore } from './run-files.js';
import type { RunStore } from './runs.js';
import type { ScheduleStore } from './schedules.js';
import type { UserPrefsStore } from './user-prefs.js';

export type { Codebase, CodebaseStore, EnvScan, IdleEnvironmentRemoval, IsolationEnvironment, NewCodebase, NewIsolationEnvironment } from './codebases.js';
export type {
  AcceptChatMessage,
  AcceptedChatMessage,
  Conversation,
  ConversationStore,
  Message,
  NewConversation,
  PostChatReply,
} from './conversations.js';
export type { CredentialKind, CredentialStore, CredentialWrite, StoredCredential } from './credentials.js';
export type { EventFilter, EventStore } from './events.js';
export type { HeartbeatStore } from './heartbeats.js';
export type { DeliveryAnswer, GitHubTrigger, Hook, HookDelivery, HookDeliveryPage, HookStore, IgnoreAnswer, NewHook, StatusCommentClaim, StoredHook } from './hooks.js';
export type { JobStore } from './jobs.js';
export type { NodeSession, NodeSessionStore } from './node-sessions.js';
export type { GitHubWriteKind, GitHubWriteRecord, GitHubWriteReservation, GitHubWriteStore } from './github-writes.js';
export type { DeclaredSync, FireAdmission, FireAnswer, NewSchedule, ScheduleStore } from './schedules.js';
export type { AiPrefs, AiPrefsPatch, StoredPreset, UserPrefsStore } from './user-prefs.js';
export type { CapturedFile, CapturedFileKind, CaptureRunFiles, RunFileCapture, RunFileStore } from './run-files.js';
export type {
  AcquireRun, DashboardRunQuery, GateDecisionAnswer, GateDecisionRequest, NewRun, RunContinuationAnswer, RunContinuationRequest, RunEnding,
  RunListQuery, RunStore, TransitionRun,
} from './runs.js';

/**
 * The one narrow, asynchronous door to the database, composed of one interface per aggregate.
 * Every process and every worker thread opens its own Store; a connection never crosses a thread.
 *
 * Written so that a PostgreSQL implementation can satisfy it: no method hands out a connection
 * or a transaction, each multi-row change is one named, atomic operation, timestamps are ISO
 * strings, and change notification is a callback (a WAL-file watch here, LISTEN/NOTIFY there).
 * The ordering and durability promises of event `seq` are on EventStore.
 *
 * Availability: a method waits out a database that another process keeps busy, without blocking
 * the caller's event loop for more than a moment at a time, and rejects with STORE_UNAVAILABLE
 * only when it stays busy past the store's retry budget (about 30 s unless configured).
 */
export interface Store
  extends RunStore, JobStore, EventStore, HeartbeatStore, CodebaseStore, ConversationStore, NodeSessionStore, UserPrefsStore,
    CredentialStore, ScheduleStore, HookStore, RunFileStore, GitHubWriteStore {
  /**
   * Throws when the database cannot answer a trivial query or take a trivial write (a full disk:
   * a disk-full STORE_UNAVAILABLE). One try: a busy database counts as answering.
   */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Calls `listener` (coalesced, at most once per tick) after another connection commits, at a
   * moment when this connection can read the commit; it may also call it when nothing changed.
   */
  onChange(listener: () => void): () => void;
}
