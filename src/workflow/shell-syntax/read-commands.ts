import { isAssignmentPrefix } from './assignment.js';
import { commandRoles } from './command-roles.js';
import { ANSI, BARE, COMMENT, DOUBLE, ESCAPED, HEREDOC, SINGLE } from './contexts.js';
import { findHeredocEnd, readDelimiterWord } from './heredoc.js';
import { closingQuote, ExpansionReader } from './read-expansions.js';
import type { ScanState } from './scan-state.js';
import type { ShellWord } from './types.js';

/**
 * A tokenizer of bash's grammar, enough to know how bash reads every `$` of a body. This half
 * reads lists of commands (operators, reserved words, `case` items, `[[ … ]]`, subshells,
 * heredocs, read after their line) and words (quotes, escapes, compound assignments, extglob
 * groups); read-expansions.ts reads what follows a `$`, a `"` or a backtick. Each simple
 * command's words go to `commandRoles`, which marks those bash evaluates as arithmetic or reads
 * as variable names.
 */

export type ListEnd = 'top' | 'paren' | 'case';

const metachars = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
/** Reserved words that leave the next word at the start of a command. */
const reserved = new Set(['if', 'then', 'elif', 'else', 'fi', 'do', 'done', 'while', 'until', '{', '}', '!', 'time', 'esac', 'coproc']);
/** Longest first, so that `;;&` is not read as `;;`. */
const operators = [';;&', '&>>', '<<<', '<<-', ';;', ';&', '&&', '||', '|&', '&>', '>>', '>&', '>|', '<&', '<>', '<(', '>(', '<<', ';', '&', '|', '(', ')', '<', '>'];
const redirections = new Set(['&>>', '&>', '>>', '>&', '>|', '<&', '<>', '<', '>', '<<<']);

export class CommandReader {
  private readonly expansions: ExpansionReader;

  constructor(private readonly s: ScanState) {
    this.expansions = new ExpansionReader(s, this);
  }

  /** Reads commands until the region ends, or the `)` of `$(…)`, or a `case` item's `;;` or `esac`. */
  readList(end: ListEnd): 'eof' | ')' | ';;' | 'esac' {
    const s = this.s;
    let words: ShellWord[] = [];
    let inBrackets = false;
    let redirect = false;
    let depth = 0;
    const finish = () => {
      if (words.length) s.apply(commandRoles(words, s.text, s.names));
      words = [];
      inBrackets = false;
      redirect = false;
    };
    while (s.pos < s.limit) {
      const c = s.text[s.pos]!;
      if (c === ' ' || c === '\t') s.pos++;
      else if (c === '\\' && s.at(s.pos + 1) === '\n') s.pos += 2;
      else if (c === '\n') {
        s.pos++;
        if (!inBrackets) finish();
        this.readHeredocBodies();
      } else if (c === '#') this.readComment();
      else if (inBrackets) {
        // Inside [[ … ]], `&&`, `||`, `(`, `)`, `<` and `>` belong to the expression.
        if (metachars.has(c)) s.pos += s.text.startsWith('&&', s.pos) || s.text.startsWith('||', s.pos) ? 2 : 1;
        else {
          const word = this.readWord();
          words.push(word);
          if (word.literal === ']]') finish();
        }
      } else if (metachars.has(c)) {
        const op = operators.find((o) => s.text.startsWith(o, s.pos))!;
        if (op === '(' && s.at(s.pos + 1) === '(' && (words.length === 0 || words.at(-1)?.literal === 'for')) {
          s.pos += 2;
          this.expansions.readArith('((…))', '))');
        } else if (op === '<<' || op === '<<-') this.readHeredocOperator();
        else if (op === '<(' || op === '>(') {
          s.pos += 2;
          this.expansions.readSubstitution();
        } else if (redirections.has(op)) {
          s.pos += op.length;
          redirect = true;
        } else {
          s.pos += op.length;
          if (op === '(') depth++;
          if (op === ')' && depth > 0) depth--;
          else if (op === ')' && end === 'paren') return finish(), ')';
          if ((op === ';;' || op === ';&' || op === ';;&') && end === 'case') return finish(), ';;';
          finish();
        }
      } else {
        const word = this.readWord();
        if (word.end === word.start) s.pos++;
        else if (redirect) redirect = false;
        else if (words.length === 0 && word.literal === 'case') this.readCase();
        else if (words.length === 0 && word.literal === 'esac' && end === 'case') return finish(), 'esac';
        else if (words.length === 0 && word.literal === 'function') this.skipBlanksAndWord();
        else if (words.length === 0 && word.literal !== undefined && reserved.has(word.literal)) continue;
        else {
          words.push(word);
          if (words.length === 1 && word.literal === '[[') inBrackets = true;
        }
      }
    }
    finish();
    return 'eof';
  }

  /** `case WORD in` then items `pattern | pattern) list ;;` up to `esac`. */
  private readCase(): void {
    const s = this.s;
    this.skipBlanksAndWord();
    this.skipBlanksAndWord();
    for (;;) {
      while (s.pos < s.limit && /[\s;]/.test(s.text[s.pos]!)) s.pos++;
      if (s.at(s.pos) === '#') {
        this.readComment();
        continue;
      }
      if (s.pos >= s.limit) return;
      if (s.text.startsWith('esac', s.pos) && !/[A-Za-z0-9_]/.test(s.at(s.pos + 4) ?? ' ')) {
        s.pos += 4;
        return;
      }
      if (s.at(s.pos) === '(') s.pos++;
      while (s.pos < s.limit && s.at(s.pos) !== ')') {
        if (/[\s|]/.test(s.text[s.pos]!)) s.pos++;
        else if (this.readWord().start === s.pos && s.at(s.pos) !== ')') s.pos++;
      }
      if (s.pos < s.limit) s.pos++;
      const ended = this.readList('case');
      if (ended === 'esac' || ended === 'eof') return;
    }
  }

  private skipBlanksAndWord(): void {
    const s = this.s;
    while (s.pos < s.limit && /\s/.test(s.text[s.pos]!)) s.pos++;
    this.readWord();
  }

  private readComment(): void {
    const s = this.s;
    const nl = s.text.indexOf('\n', s.pos);
    const end = nl === -1 || nl > s.limit ? s.limit : nl;
    s.recordRange(s.pos, end, COMMENT);
    s.pos = end;
  }

  /** One word of a command, up to an unquoted metacharacter. */
  readWord(): ShellWord {
    const s = this.s;
    const start = s.pos;
    const refs = s.collect();
    let literal: string | undefined = '';
    let elements: ShellWord[] | undefined;
    let group = 0;
    const add = (text: string | undefined) => {
      literal = literal === undefined || text === undefined ? undefined : literal + text;
    };
    while (s.pos < s.limit) {
      const c = s.text[s.pos]!;
      if (c === '(' && s.pos > start && (group > 0 || /[@!?*+]/.test(s.text[s.pos - 1]!))) {
        // An extglob group `@(a|b)`: part of the word.
        group++;
        s.pos++;
        add(c);
      } else if (group > 0 && (c === ')' || c === '|')) {
        if (c === ')') group--;
        s.pos++;
        add(c);
      } else if (c === '(' && s.pos > start && isAssignmentPrefix(s.text.slice(start, s.pos))) {
        elements = this.readCompound();
        add(undefined);
      } else if (metachars.has(c)) break;
      else if (c === '\\') {
        if (s.at(s.pos + 1) === '$') s.record(s.pos + 1, ESCAPED);
        if (s.at(s.pos + 1) !== '\n') add(s.at(s.pos + 1) ?? '');
        s.pos += 2;
      } else if (c === "'") {
        const end = closingQuote(s, s.pos + 1, false);
        s.recordRange(s.pos, end, SINGLE);
        add(s.text.slice(s.pos + 1, end - 1));
        s.pos = end;
      } else if (c === '$' && s.at(s.pos + 1) === "'") {
        const end = closingQuote(s, s.pos + 2, true);
        s.recordRange(s.pos, end, ANSI);
        add(undefined);
        s.pos = end;
      } else if (c === '"' || (c === '$' && s.at(s.pos + 1) === '"')) {
        if (c === '$') s.pos++;
        add(this.expansions.readDouble(DOUBLE));
      } else if (c === '$') {
        if (this.expansions.readDollar(BARE)) add(undefined);
        else add('$');
      } else if (c === '`') {
        this.expansions.readBackticks();
        add(undefined);
      } else {
        add(c);
        s.pos++;
      }
    }
    s.endCollect();
    return { start, end: s.pos, literal, refs, ...(elements ? { elements } : {}) };
  }

  /** The words of `name=( … )`, from its `(`. */
  private readCompound(): ShellWord[] {
    const s = this.s;
    const elements: ShellWord[] = [];
    s.pos++;
    while (s.pos < s.limit) {
      const c = s.text[s.pos]!;
      if (c === ')') {
        s.pos++;
        break;
      }
      if (/\s/.test(c)) s.pos++;
      else if (c === '#') this.readComment();
      else {
        const word = this.readWord();
        if (word.end === word.start) s.pos++;
        else elements.push(word);
      }
    }
    return elements;
  }

  /** `<<WORD` or `<<-WORD`: the body is read after the line ends. */
  private readHeredocOperator(): void {
    const s = this.s;
    s.pos += 2;
    const stripTabs = s.at(s.pos) === '-';
    if (stripTabs) s.pos++;
    while (s.at(s.pos) === ' ' || s.at(s.pos) === '\t') s.pos++;
    const word = readDelimiterWord(s.text, s.pos, s.limit);
    s.recordRange(s.pos, word.end, ESCAPED);
    s.pending.push({
      delimiter: word.delimiter,
      quoted: word.quoted,
      stripTabs,
      word: { start: s.pos, end: word.end },
      inParenSubstitution: s.closers.at(-1) === ')',
      inBackticks: s.closers.includes('`'),
    });
    s.pos = word.end;
  }

  /** After a newline: the bodies of the heredocs opened on the line, in order. */
  private readHeredocBodies(): void {
    const s = this.s;
    for (const doc of s.pending.splice(0)) {
      const { bodyEnd, resume } = findHeredocEnd(s.text, s.pos, s.limit, doc);
      if (doc.quoted) {
        const heredoc = s.heredocs.length;
        s.heredocs.push({ delimiter: doc.delimiter, stripTabs: doc.stripTabs, word: doc.word, body: { start: s.pos, end: bodyEnd }, inBackticks: doc.inBackticks });
        s.recordRange(s.pos, bodyEnd, { kind: 'quoted_heredoc', heredoc, delimiter: doc.delimiter, stripTabs: doc.stripTabs });
      } else {
        const limit = s.limit;
        s.limit = bodyEnd;
        this.expansions.readDouble(HEREDOC, true);
        s.limit = limit;
      }
      // The delimiter line is matched as written: nothing on it is substituted.
      s.recordRange(bodyEnd, resume, ESCAPED);
      s.pos = resume;
    }
  }
}
