/**
 * The callback route's hot path on one mysql2 connection: COM_STMT_EXECUTE written straight on
 * mysql2's socket and its answer read by binary-protocol.ts, while mysql2 keeps connecting,
 * preparing, running text queries and closing. Bytes go to the connection's one reader while one
 * of these executes is outstanding and to mysql2 otherwise. They come from the socket's own read
 * buffer where the socket is a reading socket (reading-socket.ts: a run slot's plain connection),
 * else from mysql2's stream through its packet parser, which is wrapped once (mysql2's plain and
 * TLS sockets both hand their bytes to `packetParser.execute`).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Connection as CoreConnection } from 'mysql2';
import type { ParamValue, StatementCallback, TextResult } from '../connections.js';
import { AnswerReader, type AnswerContext } from './binary-protocol.js';
import { ExecuteWriter, queryPacket } from './command-packets.js';
import { takeReads } from './reading-socket.js';

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
  stream: NodeJS.ReadWriteStream & { readonly writableLength: number; destroy?: () => void };
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
  private readonly reader: AnswerReader;
  /** The callback of the statement being answered; undefined while mysql2 has the connection. */
  private done: StatementCallback | undefined;
  /** The SQL of a text statement being answered (its error carries it). */
  private sql: string | undefined;
  private readonly context: AnswerContext;
  private readonly queryAttributes: boolean;
  private readonly writer = new ExecuteWriter();

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
    this.reader = new AnswerReader(this.context);
    this.queryAttributes =
      (core.config.clientFlags & core.serverCapabilityFlags & CLIENT_QUERY_ATTRIBUTES) !== 0;
    core.packetParser = { execute: (chunk) => this.onData(chunk, chunk.length, false) };
    takeReads(core.stream, (buffer, bytes) => this.takeRead(buffer, bytes));
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
  execute(id: number, values: readonly ParamValue[], countOnly: boolean, done: StatementCallback): boolean {
    if (!this.idle()) return false;
    this.start(countOnly, done);
    this.send(this.writer.execute(id, values, this.queryAttributes));
    // Bytes the socket could not write at once it holds on to: then they are its own, not the
    // writer's scratch.
    if (this.core.stream.writableLength > 0) this.writer.handOver();
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
    this.send(queryPacket(sql, this.queryAttributes));
    return true;
  }

  /**
   * Writes a command as mysql2's `write` does, without the closure it passes the socket per write:
   * a write that fails errors the socket, whose 'error' reaches mysql2's handler all the same.
   */
  private send(packet: Buffer): void {
    const stream = this.core.stream;
    if (!stream.write(packet)) stream.emit('pause');
  }

  /** mysql2 has no command running or queued, and the connection is sound. */
  private idle(): boolean {
    const core = this.core;
    return !(
      this.done !== undefined ||
      core._command ||
      core._commands.length > 0 ||
      core._fatalError ||
      core._protocolError ||
      core._closing
    );
  }

  private start(countOnly: boolean, done: StatementCallback): void {
    this.reader.start(countOnly);
    this.done = done;
    this.sql = undefined;
  }

  /**
   * A reading socket's read: taken while one of these statements is answered; while mysql2 has the
   * connection the socket emits it as 'data' (a copy), which reaches mysql2 through the wrapper.
   */
  private takeRead(buffer: Buffer, bytes: number): boolean {
    if (this.done === undefined) return false;
    this.onData(buffer, bytes, true);
    return true;
  }

  /**
   * Takes `chunk[0, bytes)`; `shared`: the chunk is the socket's read buffer, which the next read
   * overwrites, so mysql2 (which keeps what it is given) gets a copy.
   */
  private onData(chunk: Buffer, bytes: number, shared: boolean): void {
    const done = this.done;
    if (done === undefined) return this.mysql2Parser.execute(kept(chunk, 0, bytes, shared));
    const reader = this.reader;
    let used: number;
    try {
      used = reader.feed(chunk, bytes);
    } catch (err) {
      // Bytes this reader cannot follow: the connection's framing is lost, as mysql2 treats it.
      this.fail(Object.assign(err as Error, { fatal: true, code: 'PROTOCOL_PACKETS_OUT_OF_ORDER' }));
      this.core.stream.destroy?.();
      return;
    }
    if (used < 0) return;
    this.done = undefined;
    // Taken before `done`, which may start the next statement on this reader.
    const { error, result } = reader;
    if (error !== undefined) {
      if (this.sql !== undefined) Object.assign(error, { sql: this.sql });
      done(error, EMPTY_RESULT);
    } else done(undefined, result!);
    if (used < bytes) this.mysql2Parser.execute(kept(chunk, used, bytes, shared));
  }

  private fail(err: Error): void {
    const done = this.done;
    if (done === undefined) return;
    this.done = undefined;
    const fatal = this.core._fatalError ?? this.core._protocolError;
    done(fatal instanceof Error ? fatal : err, EMPTY_RESULT);
  }
}

const EMPTY_RESULT: TextResult = { rows: [], tag: '' };

/** `chunk[start, end)` to keep: a copy if the chunk is a read buffer used again. */
function kept(chunk: Buffer, start: number, end: number, shared: boolean): Buffer {
  if (!shared) return start === 0 && end === chunk.length ? chunk : chunk.subarray(start, end);
  return Buffer.from(chunk.subarray(start, end));
}
