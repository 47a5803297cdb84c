/**
 * The callback route's hot path on one mysql2 connection: COM_STMT_EXECUTE written straight on
 * mysql2's socket and its answer read by binary-protocol.ts, while mysql2 keeps connecting,
 * preparing, running text queries and closing. The connection's packet parser is wrapped once:
 * bytes go to the reader while one of these executes is outstanding and to mysql2 otherwise
 * (mysql2's plain and TLS sockets both hand their bytes to `packetParser.execute`).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Connection as CoreConnection } from 'mysql2';
import type { StatementCallback, TextResult, TextValue } from '../connections.js';
import { AnswerReader, type AnswerContext } from './binary-protocol.js';
import { executePacket, queryPacket } from './command-packets.js';

const CLIENT_QUERY_ATTRIBUTES = 0x08000000;
const BINARY_CHARSET = 63;

/** The parts of mysql2 3.x's Connection the hot path reads (none of them in its typings). */
interface Internals {
  _command: unknown;
  _commands: { length: number };
  _fatalError: unknown;
  _protocolError: unknown;
  _closing?: boolean;
  _mariadbExtendedMetadata?: boolean;
  serverCapabilityFlags: number;
  config: { clientFlags: number; compress?: unknown };
  packetParser: { execute(chunk: Buffer): void };
  stream: NodeJS.ReadableStream & { destroy?: () => void };
  write(chunk: Buffer): void;
  on(event: 'error', listener: (err: Error) => void): void;
}

interface Mysql2Tables {
  readonly encodings: readonly string[];
  readonly errorNames: Readonly<Record<number, string>>;
  readonly decode: (buf: Buffer, encoding: string, start: number, end: number) => string;
}

/** Where a connection keeps its executor: one per connection, however many routes are made on it. */
const EXECUTOR = Symbol('txbench binary executor');

/** mysql2's own character-set and error-name tables and string decoder, so text and errors match its. */
function mysql2Tables(): Mysql2Tables {
  // Node's module cache makes every call after the first cheap.
  const require = createRequire(import.meta.url);
  // mysql2's package exports hide lib/; its files are reached by path.
  const lib = join(dirname(require.resolve('mysql2')), 'lib');
  return {
    encodings: require(join(lib, 'constants/charset_encodings.js')) as string[],
    errorNames: require(join(lib, 'constants/errors.js')) as Record<number, string>,
    decode: (require(join(lib, 'parsers/string.js')) as Pick<Mysql2Tables, 'decode'>).decode,
  };
}

/** The error mysql2 gives a command when the server closes the connection under it. */
function connectionLost(): Error {
  return Object.assign(new Error('Connection lost: The server closed the connection.'), {
    fatal: true,
    code: 'PROTOCOL_CONNECTION_LOST',
  });
}

export class BinaryExecutor {
  private reader: AnswerReader | undefined;
  private done: StatementCallback | undefined;
  /** The SQL of a text statement being answered (its error carries it). */
  private sql: string | undefined;
  private readonly context: AnswerContext;
  private readonly queryAttributes: boolean;

  private constructor(
    private readonly core: Internals,
    private readonly mysql2Parser: Internals['packetParser'],
  ) {
    const { encodings, errorNames, decode } = mysql2Tables();
    this.context = {
      extendedMetadata: core._mariadbExtendedMetadata === true,
      isUtf8: (charset) => charset === BINARY_CHARSET || encodings[charset] === 'utf8',
      decode: (buf, start, end, charset) => decode(buf, encodings[charset] ?? 'utf8', start, end),
      errorName: (errno) => errorNames[errno],
    };
    this.queryAttributes =
      (core.config.clientFlags & core.serverCapabilityFlags & CLIENT_QUERY_ATTRIBUTES) !== 0;
    core.packetParser = { execute: (chunk) => this.onData(chunk) };
    core.on('error', (err) => this.fail(err));
    core.stream.on('close', () => this.fail(connectionLost()));
  }

  /** The hot path on an open mysql2 connection, or undefined where it does not apply (compression). */
  static attach(connection: CoreConnection): BinaryExecutor | undefined {
    const core = connection as unknown as Internals;
    if (core.config.compress || typeof core.packetParser?.execute !== 'function') return undefined;
    const holder = core as Internals & { [EXECUTOR]?: BinaryExecutor };
    holder[EXECUTOR] ??= new BinaryExecutor(core, core.packetParser);
    return holder[EXECUTOR];
  }

  /**
   * Executes prepared statement `id` if mysql2 is idle (no command running or queued) and the
   * connection is sound; false leaves the statement to mysql2. `done` is called once.
   */
  execute(id: number, values: readonly TextValue[], countOnly: boolean, done: StatementCallback): boolean {
    if (!this.idle()) return false;
    this.start(countOnly, done);
    this.core.write(executePacket(id, values, this.queryAttributes));
    return true;
  }

  /**
   * Runs `sql`, a statement answersOkOnly accepts, as COM_QUERY under the same conditions as
   * `execute`; a server error carries the SQL, as mysql2's query errors do.
   */
  executeText(sql: string, done: StatementCallback): boolean {
    if (!this.idle()) return false;
    this.start(true, done);
    this.sql = sql;
    this.core.write(queryPacket(sql, this.queryAttributes));
    return true;
  }

  /** mysql2 has no command running or queued, and the connection is sound. */
  private idle(): boolean {
    const core = this.core;
    return !(
      this.reader !== undefined ||
      core._command ||
      core._commands.length > 0 ||
      core._fatalError ||
      core._protocolError ||
      core._closing
    );
  }

  private start(countOnly: boolean, done: StatementCallback): void {
    this.reader = new AnswerReader(this.context, countOnly);
    this.done = done;
    this.sql = undefined;
  }

  private onData(chunk: Buffer): void {
    const reader = this.reader;
    if (reader === undefined) return this.mysql2Parser.execute(chunk);
    let used: number;
    try {
      used = reader.feed(chunk);
    } catch (err) {
      // Bytes this reader cannot follow: the connection's framing is lost, as mysql2 treats it.
      this.fail(Object.assign(err as Error, { fatal: true, code: 'PROTOCOL_PACKETS_OUT_OF_ORDER' }));
      this.core.stream.destroy?.();
      return;
    }
    if (used < 0) return;
    const done = this.done!;
    this.reader = undefined;
    this.done = undefined;
    if (reader.error !== undefined) {
      if (this.sql !== undefined) Object.assign(reader.error, { sql: this.sql });
      done(reader.error, EMPTY_RESULT);
    } else done(undefined, reader.result!);
    if (used < chunk.length) this.mysql2Parser.execute(chunk.subarray(used));
  }

  private fail(err: Error): void {
    const done = this.done;
    if (done === undefined) return;
    this.reader = undefined;
    this.done = undefined;
    const fatal = this.core._fatalError ?? this.core._protocolError;
    done(fatal instanceof Error ? fatal : err, EMPTY_RESULT);
  }
}

const EMPTY_RESULT: TextResult = { rows: [], tag: '' };
