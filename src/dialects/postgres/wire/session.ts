/**
 * A wire slot as the transaction bodies see it: the statements prepared at open (by index, for
 * the hot path) and the portable Session (prepared on first use, cached by text). Values travel
 * as text both ways; result columns are decoded as postgres.js decodes them (numbers for int2,
 * int4, oid, float4 and float8; booleans; dates; JSON; arrays of these and of text), so a body
 * reads the same values on either path; int8 and numeric stay strings (money stays exact).
 */
import type {
  CallbackRoute,
  ParamValue,
  PreparedStatement,
  Row,
  Session,
  StatementCallback,
} from '../../connections.js';
import type { Prepared, WireConnection, WireResult, WireValue } from './connection.js';

export class WireSlot implements Session, CallbackRoute {
  readonly dialect = 'postgres';
  /** The callback route is the slot itself: its statements and its connection's callbacks. */
  readonly callbacks: CallbackRoute = this;
  /** The statements given at open, prepared in that order. */
  prepared: SlotStatement[] = [];
  private readonly cache = new Map<string, Promise<SlotStatement>>();
  /** The statements whose preparing has finished, for the hot path to take without a promise. */
  private readonly ready = new Map<string, SlotStatement>();

  constructor(readonly conn: WireConnection) {}

  async prepareAll(texts: readonly string[]): Promise<void> {
    this.prepared = await Promise.all(texts.map((t) => this.statement(t)));
  }

  param(i: number): string {
    return `$${i}`;
  }

  async query<T extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    // A statement already prepared is taken as it is: no await (and no turn of the loop) for it.
    const statement = this.ready.get(sql) ?? (await this.statement(sql));
    return rowObjects(statement, await this.conn.run(statement, params.map(toText))) as T[];
  }

  async execute(sql: string, params: readonly unknown[] = []): Promise<number> {
    const statement = this.ready.get(sql) ?? (await this.statement(sql));
    return affectedRows(await this.conn.run(statement, params.map(toText)));
  }

  begin = async (): Promise<void> => void (await this.conn.simple('begin'));
  commit = async (): Promise<void> => void (await this.conn.simple('commit'));
  rollback = async (): Promise<void> => void (await this.conn.simple('rollback'));

  /** The statement prepared on this connection for `text` (prepared now if new). */
  statement(text: string): Promise<SlotStatement> {
    let p = this.cache.get(text);
    if (p === undefined) {
      p = this.conn.prepare(text).then(withReader);
      p.then(
        (prepared) => this.ready.set(text, prepared),
        // A statement that failed to prepare is tried again next time, not cached as failed.
        () => this.cache.delete(text),
      );
      this.cache.set(text, p);
    }
    return p;
  }

  /** The statement for `text` if it is already prepared on this connection. */
  preparedFor(text: string): SlotStatement | undefined {
    return this.ready.get(text);
  }

  prepare(text: string): Promise<SlotStatement> {
    return this.statement(text);
  }

  run(statement: PreparedStatement, values: readonly ParamValue[], done: StatementCallback): void {
    this.conn.execute(statement, values, done);
  }

  count(statement: PreparedStatement, values: readonly ParamValue[], done: StatementCallback): void {
    this.conn.count(statement, values, done);
  }

  runText(text: string, done: StatementCallback): void {
    this.conn.query(text, done);
  }
}

/** The number in a command tag ("UPDATE 3", "INSERT 0 1"); 0 when it has none. */
export function affectedRows(result: WireResult): number {
  const n = Number(result.tag.slice(result.tag.lastIndexOf(' ') + 1));
  return Number.isFinite(n) ? n : 0;
}

const NUMBER_TYPES: ReadonlySet<number> = new Set([21, 23, 26, 700, 701]);
const DATE_TYPES: ReadonlySet<number> = new Set([1082, 1114, 1184]);
const JSON_TYPES: ReadonlySet<number> = new Set([114, 3802]);

/** Array types by their element type: those a workload may read back as arrays. */
const ARRAY_ELEMENT: ReadonlyMap<number, number> = new Map([
  [1005, 21],
  [1007, 23],
  [1028, 26],
  [1021, 700],
  [1022, 701],
  [1000, 16],
  [1182, 1082],
  [1115, 1114],
  [1185, 1184],
  [1016, 20],
  [1231, 1700],
  [1009, 25],
  [1015, 1043],
  [1014, 1042],
  [199, 114],
  [3807, 3802],
]);

/** Reads one non-null text value as postgres.js would hand it back. */
type Decoder = (text: string) => unknown;

const asText: Decoder = (text) => text;
const asNumber: Decoder = (text) => +text;
const asBoolean: Decoder = (text) => text === 't';
const asDate: Decoder = (text) => new Date(text);
const asJson: Decoder = (text) => JSON.parse(text) as unknown;

/** The decoder for a column's type, chosen once per type rather than once per value. */
function decoderFor(typeId: number): Decoder {
  const element = ARRAY_ELEMENT.get(typeId);
  if (element !== undefined) return (text) => parseArray(text, element);
  if (NUMBER_TYPES.has(typeId)) return asNumber;
  if (typeId === 16) return asBoolean;
  if (DATE_TYPES.has(typeId)) return asDate;
  if (JSON_TYPES.has(typeId)) return asJson;
  return asText;
}

/** A text value as postgres.js would hand it back, by the column's type. */
export function decodeValue(text: WireValue, typeId: number): unknown {
  return text === null ? null : decoderFor(typeId)(text);
}

/** An array's text form ({1,2}, {"a b",NULL}, {{1},{2}}, [0:1]={1,2}), elements decoded by type. */
export function parseArray(text: string, elementType: number): unknown[] {
  let i = text.startsWith('[') ? text.indexOf('=') + 1 : 0;
  const level = (): unknown[] => {
    const out: unknown[] = [];
    i++; // the opening brace
    while (i < text.length) {
      const ch = text[i];
      if (ch === '}') {
        i++;
        return out;
      }
      if (ch === ',') i++;
      else if (ch === '{') out.push(level());
      else if (ch === '"') {
        let value = '';
        for (i++; i < text.length && text[i] !== '"'; i++) {
          if (text[i] === '\\') i++;
          value += text[i];
        }
        i++;
        out.push(decodeValue(value, elementType));
      } else {
        let end = i;
        while (end < text.length && text[end] !== ',' && text[end] !== '}') end++;
        const raw = text.slice(i, end);
        i = end;
        out.push(raw === 'NULL' ? null : decodeValue(raw, elementType));
      }
    }
    return out;
  };
  return level();
}

interface RowReader {
  readonly names: readonly string[];
  readonly decoders: readonly Decoder[];
}

/** A statement prepared on a slot's connection, with how to read its rows (its columns' names and decoders). */
export interface SlotStatement extends Prepared {
  readonly reader: RowReader;
}

/** Each statement's column names and decoders, worked out once when it is prepared. */
function withReader(statement: Prepared): SlotStatement {
  return {
    ...statement,
    reader: {
      names: statement.columns.map((c) => c.name),
      decoders: statement.columns.map((c) => decoderFor(c.typeId)),
    },
  };
}

/** The result's rows as objects keyed by column name, each value decoded by its column's type. */
export function rowObjects(statement: SlotStatement, result: WireResult): Row[] {
  const { rows } = result;
  const out: Row[] = new Array<Row>(rows.length);
  if (rows.length === 0) return out;
  const { names, decoders } = statement.reader;
  for (let r = 0; r < rows.length; r++) {
    const values = rows[r]!;
    const row: Row = {};
    for (let i = 0; i < names.length; i++) {
      const text = values[i];
      row[names[i]!] = text === null || text === undefined ? null : decoders[i]!(text);
    }
    out[r] = row;
  }
  return out;
}

/** A parameter as PostgreSQL reads it in text form. */
export function toText(value: unknown): WireValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? 't' : 'f';
    default:
      if (value instanceof Date) return value.toISOString();
      if (Array.isArray(value)) return arrayLiteral(value);
      if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`;
      return JSON.stringify(value);
  }
}

/** An array literal ({1,2,3}, {"a","b \"c\""}, nested arrays as nested braces). */
export function arrayLiteral(values: readonly unknown[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const v = values[i];
    if (v === null || v === undefined) out += 'NULL';
    else if (typeof v === 'number' || typeof v === 'bigint') out += String(v);
    else if (Array.isArray(v)) out += arrayLiteral(v);
    else out += `"${String(toText(v)).replace(/[\\"]/g, '\\$&')}"`;
  }
  return out + '}';
}
