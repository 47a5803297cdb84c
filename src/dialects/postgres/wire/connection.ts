/**
 * One PostgreSQL connection for the transaction path, on pg-protocol and a plain socket: statements
 * prepared once per connection by name, each call one Bind/Execute/Sync write (bind.ts), answers
 * read in place (answer-reader.ts; pg-protocol's parser for the rest) and handed back through one
 * callback per call with the rows as the server's text. postgres.js, used everywhere else, costs
 * about 40 µs of client CPU per call; this path a fraction of it (docs/PERFORMANCE.md).
 *
 * It speaks only what a run and the loader need: trust, password, MD5 and SCRAM-SHA-256
 * authentication, no TLS, COPY only from the client (`copyIn`). Anything else ends `open` with an
 * `UnsupportedByWire` error, and the caller uses postgres.js instead (slots.ts).
 */
import net from 'node:net';
import { serialize } from 'pg-protocol';
import type { BackendMessage, DataRowMessage, RowDescriptionMessage } from 'pg-protocol/dist/messages.js';
import type { BackendKey } from '../cancel.js';
import { copyDataHeader, MessageEncoder, type WireParameter } from './bind.js';
import { CommandTags, NO_RESULT, readAnswers } from './answer-reader.js';
import type { WireCallback, WireResult, WireValue } from './answer-reader.js';
import { endsOnMessageBoundary, rowCountingParser } from './row-counting-parser.js';
import { md5PasswordResponse, SCRAM_MECHANISM, scramClient, type ScramClient } from './scram.js';
import type { WireTarget } from './target.js';

/** A server feature this path does not speak (the caller falls back to postgres.js). */
export class UnsupportedByWire extends Error {}

/** The connection was lost or could not be made; `code` as the error classifier reads it. */
export class WireConnectionError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export type { WireCallback, WireResult, WireValue } from './answer-reader.js';

/**
 * One statement of a pipeline: a prepared statement and its text parameters, or SQL without
 * parameters (BEGIN, COMMIT) sent as the unnamed statement. Transaction control stays unnamed
 * so that the server's log shows it as `execute <unnamed>`, which log replayers run afresh each
 * time: PostgreSQL 15's pg_stat_statements counts a named, re-executed utility statement once.
 */
export type PipelineCall =
  { readonly statement: Prepared; readonly values: readonly WireParameter[] } | { readonly text: string };

/** Each statement's result in order, up to the first that failed (the server skips the rest). */
export type PipelineCallback = (err: Error | undefined, results: readonly WireResult[]) => void;

/** A statement prepared on this connection: its name and its result columns. */
export interface Prepared {
  readonly name: string;
  readonly columns: readonly { name: string; typeId: number }[];
}

interface Pending {
  /** The rows of the statement running now. */
  rows: WireValue[][];
  /** Each statement's rows and tag, as its CommandComplete arrives (a pipeline has several). */
  results: WireResult[];
  error: Error | undefined;
  columns: { name: string; typeId: number }[] | undefined;
  done: (err: Error | undefined, call: Pending) => void;
  /** A single statement's caller (`execute`, `count`, `query`): `done` hands it the last result. */
  single: WireCallback | undefined;
  /** Its rows are counted, not read: each arrives as an empty row (`count`). */
  countOnly: boolean;
  /** For `copyIn`: starts sending the rows once the server is ready for them. */
  copy?: (() => void) | undefined;
}

const READ_BUFFER_BYTES = 64 * 1024;
const SYNC = serialize.sync();
const COPY_DONE = serialize.copyDone();

export class WireConnection {
  private readonly pending: Pending[] = [];
  private readonly out = new MessageEncoder(); // this connection's own scratch buffer and memos
  private readonly parser = rowCountingParser(() => this.pending[0]?.countOnly === true);
  private readonly tags = new CommandTags();
  /** What the bytes read go to: the startup's handler until the server is ready, then the calls'. */
  private onBytes: (chunk: Buffer) => void = () => undefined;
  private lostError: WireConnectionError | undefined;
  private statements = 0;
  /** Bytes read but not yet handed out as messages: what the parser holds of a partial message. */
  private unparsed = 0;
  private readonly onClose: (() => void) | undefined;
  /** The backend's process id and secret, for a cancel request. */
  key: BackendKey | undefined;
  /** As the last ReadyForQuery said: I idle, T in a transaction, E in a failed transaction. */
  transactionStatus = 'I';
  /** The server's run-time parameters as it reported them (server_version, TimeZone…). */
  readonly parameters = new Map<string, string>();

  private constructor(
    private readonly socket: net.Socket,
    onClose: (() => void) | undefined,
  ) {
    this.onClose = onClose;
  }

  /**
   * Connects, authenticates and waits for the server to be ready, within `timeoutMs`. Rejects
   * with the server's error (its SQLSTATE in `code`), a `WireConnectionError`, or
   * `UnsupportedByWire`.
   */
  static open(target: WireTarget, timeoutMs: number, onClose?: () => void): Promise<WireConnection> {
    // Reads land in one buffer per connection (no stream, no 'data' event, no Buffer per read).
    const box: { conn?: WireConnection } = {};
    const readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    const onread = {
      buffer: readBuffer,
      callback: (bytes: number): boolean => {
        box.conn?.received(readBuffer, bytes);
        return true;
      },
    };
    const socket = target.socketPath
      ? net.connect({ path: target.socketPath, onread })
      : net.connect({ host: target.host, port: target.port, onread });
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 60_000);
    const conn = new WireConnection(socket, onClose);
    box.conn = conn;
    return conn.start(target, timeoutMs);
  }

  private start(target: WireTarget, timeoutMs: number): Promise<WireConnection> {
    const { socket } = this;
    return new Promise<WireConnection>((resolve, reject) => {
      let scram: ScramClient | undefined;
      let settled = false;
      const fail = (err: Error): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        reject(err);
      };
      const timer = setTimeout(
        () =>
          fail(
            new WireConnectionError(`no answer from the server within ${timeoutMs} ms`, 'CONNECT_TIMEOUT'),
          ),
        timeoutMs,
      );
      const password = (): string => {
        if (target.password === undefined)
          throw Object.assign(new Error('the server asks for a password and none was given'), {
            code: '28P01',
          });
        return target.password;
      };
      const onStartup = (msg: BackendMessage): void => {
        this.unparsed -= 1 + msg.length;
        switch (msg.name) {
          case 'authenticationOk':
            return;
          case 'authenticationCleartextPassword':
            socket.write(serialize.password(password()));
            return;
          case 'authenticationMD5Password': {
            const salt = (msg as unknown as { salt: Buffer }).salt;
            socket.write(serialize.password(md5PasswordResponse(password(), target.user, salt)));
            return;
          }
          case 'authenticationSASL': {
            const mechanisms = (msg as unknown as { mechanisms: string[] }).mechanisms;
            if (!mechanisms.includes(SCRAM_MECHANISM))
              throw new UnsupportedByWire(`SASL mechanisms ${mechanisms.join(', ')}`);
            scram = scramClient(password());
            socket.write(serialize.sendSASLInitialResponseMessage(SCRAM_MECHANISM, scram.first));
            return;
          }
          case 'authenticationSASLContinue':
            if (scram === undefined) throw new Error('SCRAM continue before SCRAM started');
            socket.write(serialize.sendSCRAMClientFinalMessage(scram.final(saslData(msg))));
            return;
          case 'authenticationSASLFinal':
            if (scram === undefined) throw new Error('SCRAM final before SCRAM started');
            scram.verify(saslData(msg));
            return;
          case 'parameterStatus': {
            const p = msg as unknown as { parameterName: string; parameterValue: string };
            this.parameters.set(p.parameterName, p.parameterValue);
            return;
          }
          case 'backendKeyData': {
            const k = msg as unknown as { processID: number; secretKey: number };
            this.key = { pid: k.processID, secret: k.secretKey };
            return;
          }
          case 'notice':
            return;
          case 'error':
            throw msg as unknown as Error;
          case 'readyForQuery':
            settled = true;
            clearTimeout(timer);
            socket.off('error', fail);
            socket.off('close', onEarlyClose);
            this.attach();
            resolve(this);
            return;
          default:
            throw new UnsupportedByWire(`the server message "${msg.name}" while connecting`);
        }
      };
      const onStartupData = (chunk: Buffer): void => {
        try {
          this.parser.parse(chunk, onStartup);
        } catch (err) {
          // An authentication request pg-protocol does not know (GSS, SSPI) throws from its parser.
          const e = err instanceof Error ? err : new Error(String(err));
          fail(
            /Unknown authenticationOk message type/.test(e.message) ? new UnsupportedByWire(e.message) : e,
          );
        }
      };
      const onEarlyClose = (): void =>
        fail(
          new WireConnectionError('the server closed the connection while connecting', 'CONNECTION_CLOSED'),
        );
      this.onBytes = onStartupData;
      socket.once('error', fail);
      socket.once('close', onEarlyClose);
      socket.once('connect', () => {
        socket.write(
          serialize.startup({
            user: target.user,
            database: target.database,
            client_encoding: 'UTF8',
            ...target.parameters,
          }),
        );
      });
    });
  }

  /** From now on every message belongs to a call, and a lost socket fails the calls waiting on it. */
  private attach(): void {
    const { socket } = this;
    this.onBytes = (chunk) => {
      try {
        this.parser.parse(chunk, this.onMessage);
      } catch (err) {
        // Bytes that are not the protocol: nothing more on this connection can be trusted.
        this.lose(new WireConnectionError(`protocol error: ${String(err)}`, 'CONNECTION_ENDED'));
      }
    };
    socket.on('error', (err: NodeJS.ErrnoException) =>
      this.lose(new WireConnectionError(`connection lost: ${err.message}`, err.code ?? 'CONNECTION_CLOSED')),
    );
    socket.on('close', () =>
      this.lose(new WireConnectionError('the server closed the connection', 'CONNECTION_CLOSED')),
    );
  }

  private readonly onMessage = (msg: BackendMessage): void => {
    this.unparsed -= 1 + msg.length;
    const call = this.pending[0];
    switch (msg.name) {
      case 'dataRow':
        call?.rows.push((msg as DataRowMessage).fields as WireValue[]);
        return;
      case 'commandComplete':
        if (call) {
          call.results.push({ rows: call.rows, tag: (msg as unknown as { text: string }).text });
          call.rows = [];
        }
        return;
      case 'emptyQuery':
        if (call) call.results.push(NO_RESULT);
        return;
      case 'rowDescription':
        if (call)
          call.columns = (msg as RowDescriptionMessage).fields.map((f) => ({
            name: f.name,
            typeId: f.dataTypeID,
          }));
        return;
      case 'error':
        if (call && call.error === undefined) call.error = msg as unknown as Error;
        return;
      case 'readyForQuery': {
        this.transactionStatus = (msg as unknown as { status: string }).status;
        this.pending.shift();
        if (call === undefined) return;
        call.done(call.error, call);
        return;
      }
      case 'copyInResponse':
        if (call?.copy !== undefined) {
          call.copy();
          return;
        }
        this.lose(new WireConnectionError('COPY FROM STDIN outside copyIn', 'CONNECTION_ENDED'));
        return;
      case 'copyOutResponse':
        this.lose(new WireConnectionError('COPY TO STDOUT is not spoken here', 'CONNECTION_ENDED'));
        return;
      default:
        // Bind/parse/close completions, notices, parameter statuses, notifications: nothing to keep.
        return;
    }
  };

  private readonly setStatus = (status: string): void => void (this.transactionStatus = status);

  /**
   * Reads what a read brought: whole answers in place, the rest (if the parser holds nothing, the
   * usual case) by the parser. It keeps a reference to a chunk that ends inside a message when it
   * held nothing before (later reads reuse the read buffer under it), so only then is the chunk
   * copied out; while it holds part of a message it copies what comes in (pg-protocol's mergeBuffer).
   */
  private received(readBuffer: Buffer, bytes: number): void {
    const read =
      this.unparsed === 0 ? readAnswers(readBuffer, bytes, this.pending, this.tags, this.setStatus) : 0;
    if (read === bytes) return;
    const parserWasEmpty = this.unparsed === 0;
    this.unparsed += bytes - read;
    const chunk = readBuffer.subarray(read, bytes);
    this.onBytes(parserWasEmpty && !endsOnMessageBoundary(chunk) ? Buffer.from(chunk) : chunk);
  }

  /** Whether the connection is gone (every later call fails at once). */
  get lost(): boolean {
    return this.lostError !== undefined;
  }

  /** Calls waiting for their answer. */
  get inFlight(): number {
    return this.pending.length;
  }

  /** Prepares a statement once; its result columns come with it. */
  prepare(text: string): Promise<Prepared> {
    const name = `txb${++this.statements}`;
    return new Promise((resolve, reject) => {
      this.send(
        Buffer.concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), SYNC]),
        (err, call) => {
          if (err) reject(err);
          else resolve({ name, columns: call.columns ?? [] });
        },
      );
    });
  }

  /** Runs a prepared statement with text parameters; `done` gets its rows or the server's error. */
  execute(statement: Pick<Prepared, 'name'>, values: readonly WireParameter[], done: WireCallback): void {
    this.send(this.out.bindExecuteSync(statement.name, values), toSingle, false, done);
  }

  /**
   * `execute` for a caller that reads only how many rows came back: `result.rows` holds that many
   * empty rows, and nothing of their values is turned into strings.
   */
  count(statement: Pick<Prepared, 'name'>, values: readonly WireParameter[], done: WireCallback): void {
    this.send(this.out.bindExecuteSync(statement.name, values), toSingle, true, done);
  }

  /** `simple` on a callback: SQL without parameters (BEGIN, COMMIT), its bytes made once per text. */
  query(text: string, done: WireCallback): void {
    this.send(this.out.simpleQueryMessage(text), toSingle, false, done);
  }

  /**
   * Runs prepared statements one after another in one write that ends in a single Sync: the server
   * answers them all in one flush, and the caller gets one callback. Statements after a failed
   * one are skipped by the server; outside a transaction block they all form one implicit
   * transaction, as the protocol defines.
   */
  pipeline(calls: readonly PipelineCall[], done: PipelineCallback): void {
    this.send(this.out.pipelineMessage(calls), (err, call) => done(err, call.results));
  }

  /** `execute` as a promise. */
  run(statement: Prepared, values: readonly WireParameter[]): Promise<WireResult> {
    return new Promise((resolve, reject) =>
      this.execute(statement, values, (err, result) => (err ? reject(err) : resolve(result))),
    );
  }

  /**
   * Runs `COPY … FROM STDIN` and sends `chunks` as its data, each chunk one CopyData message
   * written beside its 5-byte header (a writev: the chunk is not copied). Generation is paced by
   * the socket: the next chunk is drawn only once the last has drained. Resolves with the command
   * tag; rejects with the server's error (the server drops the rest of the data), or with the
   * generator's own error after telling the server (CopyFail) and waiting for it to give up.
   */
  copyIn(text: string, chunks: Iterable<Buffer>): Promise<string> {
    return new Promise((resolve, reject) => {
      const { socket } = this;
      let iterator: Iterator<Buffer> | undefined;
      let finished = false;
      let generatorError: unknown;
      const pump = (): void => {
        try {
          iterator ??= chunks[Symbol.iterator]();
          while (!finished) {
            const next = iterator.next();
            if (next.done === true) {
              socket.write(COPY_DONE);
              return;
            }
            if (next.value.length === 0) continue;
            socket.cork();
            socket.write(copyDataHeader(next.value.length));
            const more = socket.write(next.value);
            socket.uncork();
            if (!more) {
              socket.once('drain', pump);
              return;
            }
          }
        } catch (err) {
          generatorError = err;
          socket.write(serialize.copyFail(`txbench: ${err instanceof Error ? err.message : String(err)}`));
        }
      };
      const call = this.send(serialize.query(text), (err, settled) => {
        finished = true;
        if (generatorError !== undefined) reject(generatorError);
        else if (err) reject(err);
        else resolve(lastResult(settled).tag);
      });
      call.copy = pump;
    });
  }

  /** Runs SQL without parameters through the simple protocol (BEGIN, COMMIT, ROLLBACK, SET). */
  simple(text: string): Promise<WireResult> {
    return new Promise((resolve, reject) =>
      this.send(serialize.query(text), (err, call) => (err ? reject(err) : resolve(lastResult(call)))),
    );
  }

  private send(message: Buffer, done: Pending['done'], countOnly = false, single?: WireCallback): Pending {
    const call: Pending = {
      rows: [],
      results: [],
      error: undefined,
      columns: undefined,
      done,
      single,
      countOnly,
      copy: undefined,
    };
    if (this.lostError !== undefined) {
      const err = this.lostError;
      queueMicrotask(() => done(err, call));
      return call;
    }
    this.pending.push(call);
    // One buffer, one write: a cork would cost a tick and a writev per call. Bytes the socket
    // could not write at once it holds on to: then they are its own, not the encoder's scratch.
    this.socket.write(message);
    if (this.socket.writableLength > 0) this.out.handOver();
    return call;
  }

  private lose(err: WireConnectionError): void {
    if (this.lostError !== undefined) return;
    this.lostError = err;
    this.socket.destroy();
    const waiting = this.pending.splice(0);
    for (const call of waiting) call.done(err, call);
    this.onClose?.();
  }

  /** Closes without a word to the server (it may be gone). */
  destroy(): void {
    this.lose(new WireConnectionError('connection closed by txbench', 'CONNECTION_DESTROYED'));
  }

  /** Says goodbye (Terminate) and closes; destroys the socket if the server does not close within `timeoutMs`. */
  end(timeoutMs = 1000): Promise<void> {
    if (this.lostError !== undefined) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.socket.destroy(), timeoutMs);
      this.socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.lostError = new WireConnectionError('connection ended by txbench', 'CONNECTION_ENDED');
      for (const call of this.pending.splice(0)) call.done(this.lostError, call);
      this.socket.end(serialize.end());
    });
  }
}

/** A single call's result: its (last) statement's rows and tag. */
const lastResult = (call: Pending): WireResult => call.results[call.results.length - 1] ?? NO_RESULT;
/** The `done` of a single statement's call: its result to its caller (one function for all, no closure per call). */
const toSingle: Pending['done'] = (err, call) => call.single!(err, lastResult(call));

const saslData = (msg: BackendMessage): string => (msg as unknown as { data: string }).data;
