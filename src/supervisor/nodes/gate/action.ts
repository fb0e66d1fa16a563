/** An `approval:` gate: suspends for a person's answer (see supervisor/nodes/gate/gate.ts). */
export interface GateAction {
  type: 'gate';
  /** The message before substitution (`$node.output` references are filled in when it is reached). */
  message: string;
  captureResponse: boolean;
  onReject?: { body: { kind: 'bash' | 'prompt'; source: string }; maxAttempts: number };
  decisions?: readonly { id: string; label?: string }[];
}
