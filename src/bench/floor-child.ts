/**
 * Section 10's measuring child: one of section 7's sysbench scripts as the least a Node.js client
 * can do it, to show what no JavaScript driver can go below on this machine. Per connection one
 * socket read through `onread` (no stream), every statement prepared once per table, each call
 * one pre-built Bind/Execute/Sync write whose only change is its ints, and the answer read only as
 * far as its ReadyForQuery (no row decoded, no promise, no object per call). No scheduler, no
 * histogram, no figures but counts. Needs trust authentication (the bench's own server has it).
 * On MariaDB the same loop on COM_STMT_EXECUTE (floor-mysql.ts).
 * Prints `{ statements, transactions, errors, seconds, cpuS }` for the window after the warm-up.
 */
import { connect, type Socket } from 'node:net';
import { serialize } from 'pg-protocol';
import { BackendFrames } from './backend-frames.js';
import { childWindow } from './child-window.js';
import { openMysql } from './floor-mysql.js';
import {
  drawOf,
  floorSteps,
  paramsOf,
  RANGE_SIZE,
  sqlOf,
  statementOf,
  statementsOf,
  type FloorStatement,
} from './floor-steps.js';
import type { FloorCall, FloorLink, FloorRequest, FloorResult } from './floor-types.js';
import { Rng } from '../random/rng.js';
import { special } from '../workloads/sysbench/rand.js';

const INT4 = 23;
const UNSPECIFIED = 0;

const MARKER_A = Buffer.from([0xde, 0xad, 0xbe, 0xef]);
const MARKER_B = Buffer.from([0xfe, 0xed, 0xfa, 0xce]);

/** One Bind/Execute/Sync write for statement `name`, its ints in binary where their markers lie. */
function callBytes(name: string, statement: FloorStatement): FloorCall {
  const values = paramsOf(statement).map((p) => (p === 'a' ? MARKER_A : p === 'b' ? MARKER_B : p.text));
  const bind = serialize.bind({ statement: name, values, binary: false });
  const bytes = Buffer.concat([bind, serialize.execute(), serialize.sync()]);
  // A Buffer value goes in binary, as is: where a marker lies is where each call's int goes.
  return { bytes, aAt: bytes.indexOf(MARKER_A), bAt: bytes.indexOf(MARKER_B) };
}

interface Link {
  socket: Socket;
  frames: BackendFrames;
  onReady: () => void;
}

function open(req: FloorRequest, onError: (err: Error) => void): Promise<Link> {
  return new Promise((resolve, reject) => {
    const frames = new BackendFrames();
    let startup = true;
    const link: Link = { socket: undefined as unknown as Socket, frames, onReady: () => undefined };
    const timer = setTimeout(
      () => reject(new Error('no ReadyForQuery within 10 s (the floor needs trust authentication)')),
      10_000,
    );
    link.socket = connect({
      host: req.host,
      port: req.port,
      noDelay: true,
      onread: {
        buffer: Buffer.allocUnsafe(64 * 1024),
        callback: (n, buffer) => {
          const ready = frames.feed(buffer, n);
          if (startup && frames.errors > 0) {
            clearTimeout(timer);
            reject(new Error('the server refused the connection (the floor needs trust authentication)'));
            return false;
          }
          for (let i = 0; i < ready; i++) {
            if (startup) {
              startup = false;
              clearTimeout(timer);
              resolve(link);
            } else link.onReady();
          }
          return true;
        },
      },
    });
    link.socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
      onError(err);
    });
    link.socket.write(serialize.startup({ user: req.user, database: req.database }));
  });
}

const nameOf = (statement: FloorStatement, table: number): string => `${statement}${table}`;

/** Prepares each statement on each table; resolves at the answer's ReadyForQuery, rejects on an error. */
function prepare(link: Link, statements: readonly FloorStatement[], tables: number): Promise<void> {
  return new Promise((resolve, reject) => {
    link.onReady = () =>
      link.frames.errors > 0
        ? reject(new Error("the server could not prepare the floor's statements"))
        : resolve();
    const parses = statements.flatMap((statement) =>
      Array.from({ length: tables }, (_, i) =>
        serialize.parse({
          name: nameOf(statement, i + 1),
          text: sqlOf(statement, i + 1, (p) => `$${p}`),
          types: paramsOf(statement).map((p) => (typeof p === 'string' ? INT4 : UNSPECIFIED)),
        }),
      ),
    );
    link.socket.write(Buffer.concat([...parses, serialize.sync()]));
  });
}

async function openPostgres(
  req: FloorRequest,
  statements: readonly FloorStatement[],
  onError: (err: Error) => void,
): Promise<FloorLink> {
  const link = await open(req, onError);
  await prepare(link, statements, req.tables);
  // calls[table - 1][statement]
  const calls = Array.from({ length: req.tables }, (_, t) =>
    statements.map((statement) => callBytes(nameOf(statement, t + 1), statement)),
  );
  const floor: FloorLink = {
    send: (statement, table, a, b) => {
      const call = calls[table - 1]![statement]!;
      if (call.aAt >= 0) call.bytes.writeInt32BE(a, call.aAt);
      if (call.bAt >= 0) call.bytes.writeInt32BE(b, call.bAt);
      link.socket.write(call.bytes);
    },
    onReady: () => undefined,
    errors: () => link.frames.errors,
    close: () => link.socket.destroy(),
  };
  link.onReady = () => floor.onReady();
  return floor;
}

/** Tallies over every connection. */
interface Counts {
  statements: number;
  transactions: number;
}

/**
 * Walks the script's steps on one connection, from each answer to the next call: a table drawn
 * at each kind's first statement, ids drawn as txbench and sysbench draw them by default (`special`:
 * some rows far more often, so read_write's row locks meet as often as theirs), a transaction
 * counted at its last answer if none of its answers was an error.
 */
function drive(link: FloorLink, req: FloorRequest, counts: Counts, running: () => boolean): void {
  const steps = floorSteps(req.script);
  const statements = statementsOf(steps);
  const statementAt = steps.map((s) => statements.indexOf(statementOf(s.kind)));
  const draws = steps.map((s) => drawOf(s.kind));
  const newTable = steps.map((s) => s.newTable);
  const rng = new Rng(Math.floor(Math.random() * 2 ** 32));
  const id = (): number => special(rng, 1, req.tableSize);
  let at = 0;
  let table = 1;
  let row = 0;
  let errorsAtStart = 0;
  const next = (): void => {
    if (newTable[at]) table = 1 + Math.floor(Math.random() * req.tables);
    let a = 0;
    let b = 0;
    switch (draws[at]) {
      case 'id':
        a = id();
        break;
      case 'range':
        a = id();
        b = a + RANGE_SIZE - 1;
        break;
      case 'pairDelete':
        a = row = id();
        break;
      case 'pairInsert':
        a = row;
        b = id();
        break;
      case 'none':
        break;
    }
    link.send(statementAt[at]!, table, a, b);
  };
  link.onReady = () => {
    counts.statements++;
    if (++at === steps.length) {
      at = 0;
      const errors = link.errors();
      if (errors === errorsAtStart) counts.transactions++;
      errorsAtStart = errors;
    }
    if (running()) next();
  };
  next();
}

async function main(req: FloorRequest): Promise<FloorResult> {
  let failure: Error | undefined;
  const onError = (err: Error): void => {
    failure ??= err;
  };
  const statements = statementsOf(floorSteps(req.script));
  const links = await Promise.all(
    Array.from({ length: req.connections }, (_, i) =>
      req.dialect === 'mysql'
        ? openMysql(req, statements, onError, i)
        : openPostgres(req, statements, onError),
    ),
  );
  const counts: Counts = { statements: 0, transactions: 0 };
  let running = true;
  for (const link of links) drive(link, req, counts, () => running);
  const errors = (): number => links.reduce((sum, l) => sum + l.errors(), 0);
  const w = await childWindow(req.warmupMs, req.durationMs, () => ({ ...counts, errors: errors() }));
  const result: FloorResult = {
    statements: w.end.statements - w.start.statements,
    transactions: w.end.transactions - w.start.transactions,
    errors: w.end.errors - w.start.errors,
    seconds: w.seconds,
    cpuS: w.cpuS,
  };
  running = false;
  for (const l of links) l.close();
  if (failure) throw failure;
  return result;
}

const request = JSON.parse(process.argv[2] ?? '{}') as FloorRequest;
main(request).then(
  (result) => console.log(JSON.stringify(result)),
  (err: unknown) => {
    console.error(`floor: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
