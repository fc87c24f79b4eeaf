// ntopng's flows-query clauses → the AST of ast.ts. A hand-written lexer and
// recursive-descent parser that accepts only what it knows: columns of the
// catalog, a short list of functions, literals, comparison/logic/arithmetic
// operators. Anything else (statement separators, comments, quoted
// identifiers, sub-queries, unknown names, control characters, non-ASCII
// outside string literals, oversized or over-deep input) is a QueryError,
// which the endpoints answer with -5. Nothing here ever produces SQL text.
import {
  AGG_FNS,
  hasAggregate,
  type AggFn,
  type CatalogColumn,
  type CmpOp,
  type ColumnCatalog,
  type Expr,
  type Kind,
  type OrderItem,
  type SelectItem,
} from './ast.js';
import { ipv4ToNum, ipv6Canonical } from './ip.js';

export class QueryError extends Error {}

/** Limits (each refusal says which): clause length, tokens, nesting, IN list, alias length. */
export const LIMITS = {
  clauseChars: 16 * 1024,
  tokens: 4096,
  depth: 32,
  inList: 1024,
  identifier: 64,
  stringChars: 4096,
} as const;

// ── lexer ────────────────────────────────────────────────────────────────

type TokKind = 'id' | 'num' | 'ip4' | 'str' | 'op' | 'end';
interface Tok {
  k: TokKind;
  /** identifier/operator text, number text, or the decoded string */
  v: string;
  pos: number;
}

const OPS = ['<=', '>=', '<>', '!=', '==', '=', '<', '>', '(', ')', ',', '*', '+', '-', '/'];
const ESCAPES: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', n: '\n', t: '\t', r: '\r' };

function describe(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x20 || cp === 0x7f) return `control character U+${cp.toString(16).padStart(4, '0').toUpperCase()}`;
  if (cp > 0x7e) return `non-ASCII character U+${cp.toString(16).padStart(4, '0').toUpperCase()}`;
  return `'${ch}'`;
}

export function lex(src: string, clause: string): Tok[] {
  if (src.length > LIMITS.clauseChars) throw new QueryError(`${clause} is longer than ${LIMITS.clauseChars} characters`);
  const out: Tok[] = [];
  let i = 0;
  const err = (msg: string, at = i): never => {
    throw new QueryError(`${clause}: ${msg} at position ${at + 1}`);
  };
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (out.length >= LIMITS.tokens) throw new QueryError(`${clause} has more than ${LIMITS.tokens} terms`);
    const start = i;
    if (/[A-Za-z_]/.test(c)) {
      while (i < src.length && /[A-Za-z0-9_]/.test(src[i])) i++;
      if (i - start > LIMITS.identifier) err(`name longer than ${LIMITS.identifier} characters`, start);
      out.push({ k: 'id', v: src.slice(start, i), pos: start });
      continue;
    }
    if (/[0-9]/.test(c)) {
      const ip = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}/.exec(src.slice(i, i + 16));
      if (ip && !/[0-9A-Za-z_.]/.test(src[i + ip[0].length] ?? '')) {
        i += ip[0].length;
        out.push({ k: 'ip4', v: ip[0], pos: start });
        continue;
      }
      while (i < src.length && /[0-9]/.test(src[i])) i++;
      if (src[i] === '.' && /[0-9]/.test(src[i + 1] ?? '')) {
        i++;
        while (i < src.length && /[0-9]/.test(src[i])) i++;
      }
      if (i < src.length && /[A-Za-z0-9_.]/.test(src[i])) err(`malformed number '${src.slice(start, i + 1)}'`, start);
      out.push({ k: 'num', v: src.slice(start, i), pos: start });
      continue;
    }
    if (c === "'" || c === '"') {
      // 'text' or "text" (ntopng's IP form is ("1.2.3.4")); a doubled quote or
      // a backslash escape (ClickHouse's) puts the quote inside.
      i++;
      let s = '';
      for (;;) {
        if (i >= src.length) err('unterminated string', start);
        const d = src[i];
        if (d === c) {
          if (src[i + 1] === c) {
            s += c;
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (d === '\\') {
          const e = ESCAPES[src[i + 1] ?? ''];
          if (e === undefined) err(`unsupported escape '\\${src[i + 1] ?? ''}' in string`);
          s += e;
          i += 2;
          continue;
        }
        const cp = d.charCodeAt(0);
        if ((cp < 0x20 && d !== '\t') || cp === 0x7f) err(`${describe(d)} in string`);
        s += d;
        i++;
      }
      if (s.length > LIMITS.stringChars) err(`string longer than ${LIMITS.stringChars} characters`, start);
      out.push({ k: 'str', v: s, pos: start });
      continue;
    }
    if (c === '-' && src[i + 1] === '-') err('comments are not allowed');
    if (c === '/' && src[i + 1] === '*') err('comments are not allowed');
    const op = OPS.find((o) => src.startsWith(o, i));
    if (op) {
      i += op.length;
      out.push({ k: 'op', v: op, pos: start });
      continue;
    }
    if (c === ';') err('statement separator ";" is not allowed');
    if (c === '`') err('quoted identifiers are not allowed');
    err(`unexpected ${describe(String.fromCodePoint(src.codePointAt(i)!))}`);
  }
  out.push({ k: 'end', v: '', pos: src.length });
  return out;
}

// ── parser ───────────────────────────────────────────────────────────────

/** Words of SQL that never name a column here; a clear refusal instead of "unknown column". */
const RESERVED = new Set([
  'AND', 'OR', 'NOT', 'IN', 'LIKE', 'ILIKE', 'IS', 'NULL', 'BETWEEN', 'AS', 'ASC', 'DESC', 'DISTINCT',
  'SELECT', 'FROM', 'WHERE', 'GROUP', 'ORDER', 'BY', 'LIMIT', 'OFFSET', 'HAVING', 'UNION', 'ALL', 'JOIN',
  'INSERT', 'UPDATE', 'DELETE', 'DROP', 'ALTER', 'CREATE', 'TRUNCATE', 'ATTACH', 'DETACH', 'INTO', 'VALUES',
  'WITH', 'CASE', 'WHEN', 'THEN', 'ELSE', 'END', 'EXISTS', 'SETTINGS', 'FORMAT', 'CAST', 'PRAGMA', 'COPY',
  'INTERVAL', 'ARRAY', 'GLOBAL', 'ANY', 'SOME', 'EXCEPT', 'INTERSECT',
]);

const CMP: Record<string, CmpOp> = { '=': '=', '==': '=', '!=': '!=', '<>': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

interface Ctx {
  clause: string;
  catalog: ColumnCatalog;
  /** aggregates allowed here (select, order by) */
  aggregates: boolean;
}

class Parser {
  private p = 0;
  private depth = 0;
  /** inside SUM(…) etc.: no aggregate within an aggregate */
  private inAggregate = false;

  constructor(
    private readonly toks: Tok[],
    private readonly ctx: Ctx,
  ) {}

  get peek(): Tok {
    return this.toks[this.p];
  }

  /** the token after the current one */
  get peek2(): Tok {
    return this.toks[Math.min(this.p + 1, this.toks.length - 1)];
  }

  next(): Tok {
    return this.toks[this.p++];
  }

  err(msg: string, at: Tok = this.peek): never {
    throw new QueryError(`${this.ctx.clause}: ${msg}${at.pos >= 0 ? ` at position ${at.pos + 1}` : ''}`);
  }

  private what(t: Tok): string {
    return t.k === 'end' ? 'end of clause' : t.k === 'str' ? 'a string' : `'${t.v}'`;
  }

  isWord(w: string, t: Tok = this.peek): boolean {
    return t.k === 'id' && t.v.toUpperCase() === w;
  }

  isOp(o: string, t: Tok = this.peek): boolean {
    return t.k === 'op' && t.v === o;
  }

  eatWord(w: string): boolean {
    if (!this.isWord(w)) return false;
    this.p++;
    return true;
  }

  eatOp(o: string): boolean {
    if (!this.isOp(o)) return false;
    this.p++;
    return true;
  }

  expectOp(o: string): void {
    if (!this.eatOp(o)) this.err(`expected '${o}' but found ${this.what(this.peek)}`);
  }

  expectEnd(): void {
    if (this.peek.k !== 'end') this.err(`unexpected ${this.what(this.peek)}`);
  }

  private enter(): void {
    if (++this.depth > LIMITS.depth) this.err(`nested deeper than ${LIMITS.depth} levels`);
  }

  private leave(): void {
    this.depth--;
  }

  // expr := or
  expr(): Expr {
    this.enter();
    try {
      return this.or();
    } finally {
      this.leave();
    }
  }

  private or(): Expr {
    const first = this.and();
    if (!this.isWord('OR')) return first;
    const args = [bool(first, this, 'OR')];
    while (this.eatWord('OR')) args.push(bool(this.and(), this, 'OR'));
    return { t: 'logic', op: 'OR', args, kind: 'bool' };
  }

  private and(): Expr {
    const first = this.not();
    if (!this.isWord('AND')) return first;
    const args = [bool(first, this, 'AND')];
    while (this.eatWord('AND')) args.push(bool(this.not(), this, 'AND'));
    return { t: 'logic', op: 'AND', args, kind: 'bool' };
  }

  private not(): Expr {
    if (this.eatWord('NOT')) {
      this.enter();
      try {
        return { t: 'not', arg: bool(this.not(), this, 'NOT'), kind: 'bool' };
      } finally {
        this.leave();
      }
    }
    return this.predicate();
  }

  private predicate(): Expr {
    const at = this.peek;
    const l = this.additive();
    const t = this.peek;
    if (t.k === 'op' && CMP[t.v]) {
      this.p++;
      const r = this.additive();
      return compare(CMP[t.v], l, r, this, t);
    }
    if (this.isWord('IS')) {
      this.p++;
      const not = this.eatWord('NOT');
      if (!this.eatWord('NULL')) this.err(`expected NULL after IS`);
      if (l.t !== 'col') this.err('IS NULL applies to a column', at);
      return { t: 'isnull', arg: l, not, kind: 'bool' };
    }
    const not = this.isWord('NOT') && ['IN', 'LIKE', 'ILIKE', 'BETWEEN'].some((w) => this.isWord(w, this.toks[this.p + 1]));
    if (not) this.p++;
    if (this.eatWord('IN')) {
      this.expectOp('(');
      const list: Expr[] = [];
      do {
        if (list.length >= LIMITS.inList) this.err(`IN list longer than ${LIMITS.inList} values`);
        const v = this.additive();
        list.push(coerce(v, valueKind(l, this, at), this, at));
      } while (this.eatOp(','));
      this.expectOp(')');
      if (list.some((v) => v.t !== 'lit')) this.err('IN takes a list of literal values', at);
      return { t: 'in', arg: value(l, this, at), list, not, kind: 'bool' };
    }
    if (this.isWord('LIKE') || this.isWord('ILIKE')) {
      const ci = this.isWord('ILIKE');
      this.p++;
      const pat = this.additive();
      if (valueKind(l, this, at) !== 'str') this.err('LIKE applies to a text column', at);
      if (pat.t !== 'lit' || pat.kind !== 'str') this.err('LIKE takes a quoted pattern', at);
      return { t: 'like', arg: l, pattern: pat, ci, not, kind: 'bool' };
    }
    if (this.eatWord('BETWEEN')) {
      const k = valueKind(l, this, at);
      const lo = coerce(this.additive(), k, this, at);
      if (!this.eatWord('AND')) this.err('expected AND in BETWEEN');
      const hi = coerce(this.additive(), k, this, at);
      return { t: 'between', arg: l, lo, hi, not, kind: 'bool' };
    }
    return l;
  }

  private additive(): Expr {
    let l = this.multiplicative();
    while (this.isOp('+') || this.isOp('-')) {
      const t = this.peek;
      this.p++;
      const r = this.multiplicative();
      l = { t: 'arith', op: t.v as '+' | '-', l: numeric(l, this, t), r: numeric(r, this, t), kind: 'num' };
    }
    return l;
  }

  private multiplicative(): Expr {
    let l = this.unary();
    while (this.isOp('*') || this.isOp('/')) {
      const t = this.peek;
      this.p++;
      const r = this.unary();
      l = { t: 'arith', op: t.v as '*' | '/', l: numeric(l, this, t), r: numeric(r, this, t), kind: 'num' };
    }
    return l;
  }

  private unary(): Expr {
    if (this.isOp('-')) {
      const t = this.peek;
      this.p++;
      this.enter();
      try {
        const a = this.unary();
        if (a.t === 'lit' && a.kind === 'num') {
          return { t: 'lit', value: typeof a.value === 'bigint' ? -a.value : -(a.value as number), kind: 'num' };
        }
        return { t: 'neg', arg: numeric(a, this, t), kind: 'num' };
      } finally {
        this.leave();
      }
    }
    return this.primary();
  }

  private primary(): Expr {
    const t = this.peek;
    switch (t.k) {
      case 'num': {
        this.p++;
        return { t: 'lit', value: numberValue(t.v, this, t), kind: 'num' };
      }
      case 'ip4': {
        this.p++;
        const n = ipv4ToNum(t.v);
        if (n === null) this.err(`'${t.v}' is not an IPv4 address`, t);
        return { t: 'lit', value: n, kind: 'ipv4' };
      }
      case 'str':
        this.p++;
        return { t: 'lit', value: t.v, kind: 'str' };
      case 'op':
        if (t.v === '(') {
          this.p++;
          if (this.isWord('SELECT')) this.err('sub-queries are not allowed');
          const e = this.expr();
          this.expectOp(')');
          return e;
        }
        if (t.v === '*') this.err(`'*' is only allowed alone in select_clause or as COUNT(*)`);
        return this.err(`unexpected ${this.what(t)}`);
      case 'id': {
        this.p++;
        const up = t.v.toUpperCase();
        if (this.isOp('(')) return this.call(t, up);
        if (up === 'NULL') return { t: 'null', kind: 'str' };
        if (RESERVED.has(up)) this.err(`SQL keyword ${up} is not allowed here`, t);
        const col = this.ctx.catalog.byName.get(up);
        if (!col) this.err(`unknown column '${t.v}'`, t);
        return { t: 'col', col, kind: col.kind };
      }
      default:
        return this.err(`unexpected ${this.what(t)}`);
    }
  }

  private call(name: Tok, up: string): Expr {
    this.p++; // (
    this.enter();
    try {
      if ((AGG_FNS as readonly string[]).includes(up)) return this.aggregate(name, up as AggFn);
      switch (up) {
        case 'ABS': {
          const a = this.expr();
          this.expectOp(')');
          return { t: 'abs', arg: numeric(a, this, name), kind: 'num' };
        }
        case 'IPV4STRINGTONUM':
        case 'IPV6STRINGTONUM': {
          // ntopng's where_func: the literal's stored form, computed here
          const a = this.expr();
          this.expectOp(')');
          if (a.t !== 'lit' || a.kind !== 'str') this.err(`${name.v} takes a quoted address`, name);
          return coerce(a, up === 'IPV4STRINGTONUM' ? 'ipv4' : 'ipv6', this, name);
        }
        case 'IPV4NUMTOSTRING':
        case 'IPV6NUMTOSTRING': {
          // ntopng's select_func: addresses are answered as text anyway
          const a = this.expr();
          this.expectOp(')');
          const want = up === 'IPV4NUMTOSTRING' ? 'ipv4' : 'ipv6';
          if (a.kind !== want) this.err(`${name.v} takes an ${want === 'ipv4' ? 'IPv4' : 'IPv6'} column`, name);
          return a;
        }
        default:
          return this.err(`unknown function '${name.v}'`, name);
      }
    } finally {
      this.leave();
    }
  }

  private aggregate(name: Tok, fn: AggFn): Expr {
    if (!this.ctx.aggregates) this.err(`aggregate ${fn} is not allowed in ${this.ctx.clause}`, name);
    if (this.inAggregate) this.err(`aggregate ${fn} inside another aggregate`, name);
    this.inAggregate = true;
    try {
      if (fn === 'COUNT' && this.eatOp('*')) {
        this.expectOp(')');
        return { t: 'agg', fn, distinct: false, kind: 'num' };
      }
      const distinct = this.eatWord('DISTINCT');
      if (distinct && fn !== 'COUNT') this.err(`DISTINCT is only supported in COUNT(DISTINCT …)`, name);
      const a = this.expr();
      this.expectOp(')');
      const v = value(a, this, name);
      if ((fn === 'SUM' || fn === 'AVG') && !['num', 'ipv4', 'time'].includes(v.kind)) this.err(`${fn} takes a numeric value`, name);
      const kind: Kind = fn === 'COUNT' || fn === 'SUM' || fn === 'AVG' ? 'num' : v.kind;
      return { t: 'agg', fn, arg: fn === 'SUM' || fn === 'AVG' ? numeric(v, this, name) : v, distinct, kind };
    } finally {
      this.inAggregate = false;
    }
  }

  /** A column name (group by), checked. */
  column(): { col: CatalogColumn; spelled: string } {
    const t = this.peek;
    if (t.k !== 'id') this.err(`expected a column name but found ${this.what(t)}`);
    this.p++;
    const up = t.v.toUpperCase();
    if (RESERVED.has(up)) this.err(`SQL keyword ${up} is not allowed here`, t);
    const col = this.ctx.catalog.byName.get(up);
    if (!col) this.err(`unknown column '${t.v}'`, t);
    return { col, spelled: up };
  }
}

// ── typing ───────────────────────────────────────────────────────────────

function bool(e: Expr, p: Parser, op: string): Expr {
  if (e.kind !== 'bool') p.err(`${op} joins conditions, not values`);
  return e;
}

function value(e: Expr, p: Parser, at: Tok): Expr {
  if (e.kind === 'bool') p.err('a condition is not a value here', at);
  return e;
}

function valueKind(e: Expr, p: Parser, at: Tok): Kind {
  return value(e, p, at).kind;
}

/** Operand of arithmetic: numbers, IPv4 numbers, times (as epoch seconds). */
function numeric(e: Expr, p: Parser, at: Tok): Expr {
  if (e.t === 'lit' && e.kind === 'str') {
    const n = Number(e.value);
    if (/^-?\d+(\.\d+)?$/.test(e.value as string) && Number.isFinite(n)) return { t: 'lit', value: n, kind: 'num' };
  }
  if (!['num', 'ipv4', 'time'].includes(e.kind) || e.t === 'null') p.err('arithmetic takes numeric values', at);
  return e;
}

function numberValue(text: string, p: Parser, at: Tok): number | bigint {
  if (text.includes('.')) {
    const n = Number(text);
    if (!Number.isFinite(n)) p.err(`number '${text}' out of range`, at);
    return n;
  }
  const b = BigInt(text);
  if (b > 0xffffffffffffffffn) p.err(`number '${text}' out of range`, at);
  return b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
}

/** 'YYYY-MM-DD[ HH:MM[:SS]]' (UTC) → epoch seconds, as ClickHouse reads a DateTime literal. */
function dateToEpoch(s: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(s);
  if (!m) return null;
  const ms = Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0));
  const d = new Date(ms);
  if (Number.isNaN(ms) || d.getUTCDate() !== +m[3] || d.getUTCMonth() !== +m[2] - 1) return null;
  return ms / 1000;
}

/**
 * A literal turned into the storage form of the value it is compared with;
 * non-literals must already be of a compatible kind.
 */
function coerce(e: Expr, kind: Kind, p: Parser, at: Tok): Expr {
  if (e.t === 'null') return { t: 'null', kind };
  if (e.t !== 'lit') {
    if (e.kind === kind || (isNumberish(e.kind) && isNumberish(kind))) return e;
    return p.err(`cannot compare ${label(e.kind)} with ${label(kind)}`, at);
  }
  const v = e.value;
  const bad = (): never => p.err(`${e.kind === 'str' ? `'${String(v).slice(0, 64)}'` : String(v)} is not ${article(kind)}`, at);
  switch (kind) {
    case 'ipv4': {
      if (e.kind === 'ipv4') return e;
      if (e.kind === 'str') {
        const n = ipv4ToNum((v as string).trim());
        return n === null ? bad() : { t: 'lit', value: n, kind: 'ipv4' };
      }
      if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff) return { t: 'lit', value: v, kind: 'ipv4' };
      return bad();
    }
    case 'ipv6': {
      if (e.kind === 'ipv6') return e;
      if (e.kind !== 'str') return bad();
      const c = ipv6Canonical((v as string).trim());
      return c === null ? bad() : { t: 'lit', value: c, kind: 'ipv6' };
    }
    case 'num': {
      if (e.kind === 'num' || e.kind === 'ipv4') return { t: 'lit', value: v, kind: 'num' };
      // ClickHouse reads '6' compared with a number as 6
      if (e.kind === 'str' && /^-?\d+(\.\d+)?$/.test((v as string).trim())) return signed(v as string, p, at);
      return bad();
    }
    case 'time': {
      if (e.kind === 'num' && (typeof v === 'bigint' || Number.isInteger(v)) && Number(v) >= 0 && Number(v) <= 0xffffffff) return { t: 'lit', value: Number(v), kind: 'time' };
      if (e.kind === 'str') {
        const s = (v as string).trim();
        const n = /^\d+$/.test(s) ? Number(s) : dateToEpoch(s);
        return n === null || n > 0xffffffff ? bad() : { t: 'lit', value: n, kind: 'time' };
      }
      return bad();
    }
    case 'str':
      return e.kind === 'str' ? e : p.err(`${String(v)} is not a quoted string (text values are quoted)`, at);
    default:
      return bad();
  }
}

function signed(text: string, p: Parser, at: Tok): Expr {
  const s = text.trim();
  const neg = s.startsWith('-');
  const n = numberValue(neg ? s.slice(1) : s, p, at);
  return { t: 'lit', value: neg ? -n : n, kind: 'num' };
}

const isNumberish = (k: Kind) => k === 'num' || k === 'ipv4' || k === 'time';
const KIND_TEXT: Record<Kind, string> = { num: 'a number', str: 'text', ipv4: 'an IPv4 address', ipv6: 'an IPv6 address', time: 'a time', bool: 'a condition' };
const label = (k: Kind) => KIND_TEXT[k];
const article = (k: Kind) => (k === 'time' ? 'a time (epoch seconds or YYYY-MM-DD hh:mm:ss)' : KIND_TEXT[k]);

function compare(op: CmpOp, l: Expr, r: Expr, p: Parser, at: Tok): Expr {
  value(l, p, at);
  value(r, p, at);
  if (l.t === 'null' || r.t === 'null') p.err('compare with NULL using IS NULL / IS NOT NULL', at);
  if (l.t === 'lit' && r.t === 'lit') p.err('a comparison needs a column on one side', at);
  // the literal side takes the other side's kind
  if (l.t === 'lit') l = coerce(l, r.kind, p, at);
  else r = coerce(r, l.kind, p, at);
  if (l.kind === 'ipv6' && op !== '=' && op !== '!=') p.err('IPv6 addresses compare with = or != only', at);
  return { t: 'cmp', op, l, r, kind: 'bool' };
}

/**
 * A value given as text outside any clause (a `value;op` filter parameter)
 * in the storage form of the column it filters, or a QueryError naming `what`.
 */
export function literalFor(catalog: ColumnCatalog, col: CatalogColumn, text: string, what: string): Expr {
  const at: Tok = { k: 'end', v: '', pos: -1 };
  const p = new Parser([at], { clause: what, catalog, aggregates: false });
  if (/[\u0000-\u001f\u007f]/.test(text)) p.err('control characters are not allowed', at);
  if (text.length > LIMITS.stringChars) p.err(`value longer than ${LIMITS.stringChars} characters`, at);
  return coerce({ t: 'lit', value: text, kind: 'str' }, col.kind, p, at);
}

// ── clauses ──────────────────────────────────────────────────────────────

function parser(src: string, clause: string, catalog: ColumnCatalog, aggregates: boolean): Parser {
  return new Parser(lex(src, clause), { clause, catalog, aggregates });
}

/** where_clause → one condition (undefined when blank). */
export function parseWhere(src: string | undefined, catalog: ColumnCatalog): Expr | undefined {
  if (!src || !src.trim()) return undefined;
  const p = parser(src, 'where_clause', catalog, false);
  const e = p.expr();
  p.expectEnd();
  if (e.kind !== 'bool') throw new QueryError('where_clause: expected a condition (e.g. PROTOCOL = 6), found a value');
  return e;
}

/** Renders an expression as the key of its value in answered records (ntopng names unaliased values by their text). */
export function keyOf(e: Expr): string {
  switch (e.t) {
    case 'col':
      return e.col.name;
    case 'lit':
      return typeof e.value === 'string' ? `'${e.value}'` : String(e.value);
    case 'null':
      return 'NULL';
    case 'agg':
      return `${e.fn}(${e.arg ? `${e.distinct ? 'DISTINCT ' : ''}${keyOf(e.arg)}` : '*'})`;
    case 'abs':
      return `ABS(${keyOf(e.arg)})`;
    case 'neg':
      return `-${keyOf(e.arg)}`;
    case 'arith':
      return `(${keyOf(e.l)} ${e.op} ${keyOf(e.r)})`;
    default:
      return 'expr';
  }
}

/** select_clause → items ('*' or blank = every column). */
export function parseSelect(src: string | undefined, catalog: ColumnCatalog): SelectItem[] {
  const s = (src ?? '').trim();
  if (!s || s === '*') return catalog.columns.map((col) => ({ expr: { t: 'col', col, kind: col.kind }, key: col.name }));
  const p = parser(s, 'select_clause', catalog, true);
  const items: SelectItem[] = [];
  const aliases = new Set<string>();
  do {
    const start = p.peek;
    if (p.isOp('*')) p.err(`'*' must be the whole select_clause`);
    const expr = p.expr();
    if (expr.kind === 'bool') p.err('select_clause lists values, not conditions', start);
    let alias: string | undefined;
    const explicit = p.eatWord('AS');
    const t = p.peek;
    if (explicit || (t.k === 'id' && !RESERVED.has(t.v.toUpperCase()))) {
      if (t.k !== 'id') p.err(`expected an alias name after AS but found ${t.k === 'end' ? 'end of clause' : `'${t.v}'`}`);
      const up = t.v.toUpperCase();
      if (RESERVED.has(up)) p.err(`SQL keyword ${up} cannot be an alias`, t);
      if (catalog.byName.has(up)) p.err(`alias '${t.v}' is the name of a column`, t);
      if (aliases.has(up)) p.err(`alias '${t.v}' is used twice`, t);
      aliases.add(up);
      alias = t.v;
      p.next();
    }
    // a bare column keeps the spelling used (IPV4_SRC_ADDR_FORMATTED stays so)
    const spelled = expr.t === 'col' && start.k === 'id' ? start.v.toUpperCase() : undefined;
    items.push({ expr, key: alias ?? spelled ?? keyOf(expr), alias });
  } while (p.eatOp(','));
  p.expectEnd();
  return items;
}

/** group_by_clause (or topk's select_keys_clause) → columns. */
export function parseGroupBy(src: string | undefined, catalog: ColumnCatalog, clause = 'group_by_clause'): Expr[] {
  if (!src || !src.trim()) return [];
  const p = parser(src, clause, catalog, false);
  const out: Expr[] = [];
  do {
    const { col } = p.column();
    if (!out.some((e) => e.t === 'col' && e.col === col)) out.push({ t: 'col', col, kind: col.kind });
  } while (p.eatOp(','));
  p.expectEnd();
  return out;
}

/** order_by_clause → items; an identifier naming a select alias refers to that item. */
export function parseOrderBy(src: string | undefined, catalog: ColumnCatalog, items: SelectItem[]): OrderItem[] {
  if (!src || !src.trim()) return [];
  const p = parser(src, 'order_by_clause', catalog, true);
  const out: OrderItem[] = [];
  do {
    const t = p.peek;
    let expr: OrderItem['expr'];
    const aliasIdx = t.k === 'id' && !p.isOp('(', p.peek2) ? items.findIndex((i) => i.alias?.toUpperCase() === t.v.toUpperCase()) : -1;
    if (aliasIdx >= 0) {
      p.next();
      expr = { t: 'item', index: aliasIdx };
    } else {
      const e = p.expr();
      if (e.kind === 'bool') p.err('order_by_clause sorts by values, not conditions', t);
      expr = e;
    }
    let desc = false;
    if (p.eatWord('DESC')) desc = true;
    else p.eatWord('ASC');
    out.push({ expr, desc });
  } while (p.eatOp(','));
  p.expectEnd();
  return out;
}

/** Columns referenced outside aggregates. */
function bareColumns(e: Expr, out: Set<CatalogColumn>): Set<CatalogColumn> {
  switch (e.t) {
    case 'col':
      out.add(e.col);
      break;
    case 'agg':
      break;
    case 'cmp':
    case 'arith':
      bareColumns(e.l, out);
      bareColumns(e.r, out);
      break;
    case 'logic':
      e.args.forEach((a) => bareColumns(a, out));
      break;
    case 'not':
    case 'neg':
    case 'abs':
    case 'isnull':
      bareColumns(e.arg, out);
      break;
    case 'in':
      bareColumns(e.arg, out);
      break;
    case 'like':
      bareColumns(e.arg, out);
      break;
    case 'between':
      bareColumns(e.arg, out);
      break;
  }
  return out;
}

/**
 * An aggregating query (group by, or an aggregate selected) answers one row
 * per group: every column named outside an aggregate must be grouped on.
 * Checked here so the database never sees a query it would refuse.
 */
export function checkGrouping(items: SelectItem[], groupBy: Expr[], orderBy: OrderItem[]): void {
  const aggregating = groupBy.length > 0 || items.some((i) => hasAggregate(i.expr)) || orderBy.some((o) => o.expr.t !== 'item' && hasAggregate(o.expr));
  if (!aggregating) return;
  const grouped = new Set(groupBy.map((g) => (g as { col: CatalogColumn }).col));
  const check = (e: Expr, where: string) => {
    for (const c of bareColumns(e, new Set())) {
      if (!grouped.has(c)) throw new QueryError(`${where}: ${c.name} must be in group_by_clause or inside an aggregate (SUM, COUNT, MIN, MAX, AVG, ANY)`);
    }
  };
  for (const i of items) check(i.expr, 'select_clause');
  for (const o of orderBy) if (o.expr.t !== 'item') check(o.expr, 'order_by_clause');
}

/** maxhits_clause: default 10, at most MAX_HITS (larger asks are cut to it). */
export const MAX_HITS = 10_000;
export function parseMaxHits(v: number | undefined): number {
  if (v === undefined) return 10;
  if (!Number.isInteger(v) || v < 1) throw new QueryError('maxhits_clause must be a positive integer');
  return Math.min(v, MAX_HITS);
}
