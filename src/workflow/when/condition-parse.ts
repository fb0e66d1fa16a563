/**
 * The `when:` grammar (as upstream, REFERENCE §1.6):
 *
 *   condition  := all ( '||' all )*          `&&` binds tighter than `||`; no parentheses
 *   all        := comparison ( '&&' comparison )*
 *   comparison := ref op literal
 *   ref        := '$' id '.output' [ '.' field ]  |  '$' id '.' field  |  '$INPUTS.' name
 *   op         := '==' | '!=' | '<=' | '>=' | '<' | '>'
 *   literal    := "'" text "'"  |  number  |  'true'  |  'false'
 *
 * Node ids may contain `-`. A single-quoted literal has no escapes and may be empty.
 */

export type ConditionRef = { kind: 'output'; nodeId: string; field?: string } | { kind: 'input'; name: string };

export type ConditionLiteral =
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number; text: string }
  | { kind: 'boolean'; value: boolean };

export const comparisonOperators = ['==', '!=', '<=', '>=', '<', '>'] as const;
export type ComparisonOperator = (typeof comparisonOperators)[number];

export interface Comparison {
  ref: ConditionRef;
  op: ComparisonOperator;
  literal: ConditionLiteral;
}

/** Disjunctive normal form: true when every comparison of any one group is true. */
export interface Condition {
  anyOf: Comparison[][];
}

export type ParsedCondition = { ok: true; condition: Condition } | { ok: false; error: string };

class ConditionSyntaxError extends Error {}

/** Parses a `when:` expression; a syntax error is a value, never a throw. */
export function parseCondition(expr: string): ParsedCondition {
  try {
    return { ok: true, condition: new Parser(expr).parse() };
  } catch (err) {
    if (err instanceof ConditionSyntaxError) return { ok: false, error: err.message };
    throw err;
  }
}

const idPattern = /^[A-Za-z_][A-Za-z0-9_-]*/;
const fieldPattern = /^[A-Za-z_][A-Za-z0-9_]*/;
const numberPattern = /^-?\d+(?:\.\d+)?(?![A-Za-z0-9_.])/;

class Parser {
  private pos = 0;
  constructor(private readonly text: string) {}

  parse(): Condition {
    const anyOf: Comparison[][] = [];
    this.skipSpace();
    if (this.atEnd()) this.fail('the expression is empty');
    for (;;) {
      const allOf: Comparison[] = [this.comparison()];
      while (this.take('&&')) allOf.push(this.comparison());
      anyOf.push(allOf);
      if (this.take('||')) continue;
      if (!this.atEnd()) this.fail(`expected '&&', '||' or the end at "${this.rest()}"`);
      return { anyOf };
    }
  }

  private comparison(): Comparison {
    this.skipSpace();
    const ref = this.ref();
    this.skipSpace();
    const op = comparisonOperators.find((o) => this.text.startsWith(o, this.pos));
    if (!op) this.fail(`expected an operator (${comparisonOperators.join(' ')}) at "${this.rest()}"`);
    this.pos += op.length;
    this.skipSpace();
    const literal = this.literal();
    this.skipSpace();
    return { ref, op, literal };
  }

  private ref(): ConditionRef {
    if (this.text[this.pos] !== '$') this.fail(`expected a reference like $node.output at "${this.rest()}"`);
    this.pos++;
    const id = this.match(idPattern, 'a node id or INPUTS after $');
    if (this.text[this.pos] !== '.') this.fail(`expected '.' after $${id}`);
    this.pos++;
    if (id === 'INPUTS') return { kind: 'input', name: this.match(idPattern, 'an input name after $INPUTS.') };
    const segment = this.match(fieldPattern, `'output' or a field name after $${id}.`);
    if (segment !== 'output') return { kind: 'output', nodeId: id, field: segment };
    if (this.text[this.pos] !== '.') return { kind: 'output', nodeId: id };
    this.pos++;
    return { kind: 'output', nodeId: id, field: this.match(fieldPattern, `a field name after $${id}.output.`) };
  }

  private literal(): ConditionLiteral {
    if (this.text[this.pos] === "'") {
      const close = this.text.indexOf("'", this.pos + 1);
      if (close < 0) this.fail('unterminated quoted value');
      const value = this.text.slice(this.pos + 1, close);
      this.pos = close + 1;
      return { kind: 'string', value };
    }
    for (const word of ['true', 'false'] as const) {
      if (this.text.startsWith(word, this.pos) && !/[A-Za-z0-9_]/.test(this.text[this.pos + word.length] ?? '')) {
        this.pos += word.length;
        return { kind: 'boolean', value: word === 'true' };
      }
    }
    const number = numberPattern.exec(this.text.slice(this.pos))?.[0];
    if (number === undefined) {
      this.fail(`expected a single-quoted value, a number, true or false at "${this.rest()}"`);
    }
    this.pos += number.length;
    return { kind: 'number', value: Number(number), text: number };
  }

  private match(pattern: RegExp, what: string): string {
    const found = pattern.exec(this.text.slice(this.pos))?.[0];
    if (found === undefined) this.fail(`expected ${what}`);
    this.pos += found.length;
    return found;
  }

  private take(token: string): boolean {
    this.skipSpace();
    if (!this.text.startsWith(token, this.pos)) return false;
    this.pos += token.length;
    return true;
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos++;
  }

  private atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  private rest(): string {
    return this.text.slice(this.pos, this.pos + 20);
  }

  private fail(message: string): never {
    throw new ConditionSyntaxError(message);
  }
}
