import type { ShellContext } from './types.js';

/** The contexts the readers record, by the quoting they stand for. */
export const BARE: ShellContext = { kind: 'bare' };
export const DOUBLE: ShellContext = { kind: 'double' };
export const SINGLE: ShellContext = { kind: 'single' };
export const ANSI: ShellContext = { kind: 'ansi' };
export const HEREDOC: ShellContext = { kind: 'heredoc' };
export const ESCAPED: ShellContext = { kind: 'escaped' };
export const COMMENT: ShellContext = { kind: 'comment' };
