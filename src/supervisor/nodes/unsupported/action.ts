export interface UnsupportedAction {
  type: 'unsupported';
  /** The contract's record kind, e.g. `agent`, `gate`, `loop`. */
  kind: string;
  reason: string;
}
