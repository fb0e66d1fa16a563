/** A `cancel:` node: ends the run cancelled with its reason. */
export interface HaltAction {
  type: 'halt';
  reason: string;
}
