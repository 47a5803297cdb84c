/**
 * What section 10's bare loop runs for each of section 7's scripts: txbench's own steps for the
 * script at sysbench's default counts (callback-event.ts's `stepsOf`, so the loop and txbench
 * issue the same statements in the same order, one round trip each), and each step's parameters.
 * The loop draws its ids from sysbench's default distribution (`special`, as txbench does: it
 * decides how often read_write's row locks meet, so how many TPS the loop can make at 4 threads)
 * and sends fixed strings for c and pad: the least a client does.
 */
import { stepsOf } from '../workloads/sysbench/callback-event.js';
import {
  DEFAULT_COUNTS,
  DEFAULT_RANGE_SIZE,
  planOf,
  tableStatements,
  type TableStatements,
} from '../workloads/sysbench/scripts.js';
import type { Script } from './sysbench-figures.js';

export type FloorStep = ReturnType<typeof stepsOf>[number];
export type FloorKind = FloorStep['kind'];

/** oltp_common.lua's default range size, as txbench's run takes it. */
export const RANGE_SIZE = DEFAULT_RANGE_SIZE;

export const floorSteps = (script: Script): readonly FloorStep[] => stepsOf(planOf(script, DEFAULT_COUNTS));

/** A step's statement: its key in a table's statements, or BEGIN/COMMIT. */
export type FloorStatement = keyof TableStatements | 'begin' | 'commit';

const STATEMENT: Record<FloorKind, FloorStatement> = {
  begin: 'begin',
  commit: 'commit',
  pointSelect: 'pointSelect',
  simpleRange: 'simpleRange',
  sumRange: 'sumRange',
  orderRange: 'orderRange',
  distinctRange: 'distinctRange',
  indexUpdate: 'indexUpdate',
  nonIndexUpdate: 'nonIndexUpdate',
  deletePair: 'delete',
  insertPair: 'insert',
  delete: 'delete',
  insertNew: 'insertNew',
};

export const statementOf = (kind: FloorKind): FloorStatement => STATEMENT[kind];

/** The statements a script's steps use, each once. */
export const statementsOf = (steps: readonly FloorStep[]): FloorStatement[] => [
  ...new Set(steps.map((s) => statementOf(s.kind))),
];

/** A statement's text on table `table` (`p` spells the i-th placeholder). */
export function sqlOf(statement: FloorStatement, table: number, p: (i: number) => string): string {
  if (statement === 'begin') return 'BEGIN';
  if (statement === 'commit') return 'COMMIT';
  return tableStatements(table, p)[statement];
}

/**
 * A statement's parameters, in placeholder order: `a` and `b` for the two ints the loop writes
 * each call (an id; a range's upper bound; an insert's k), a string for a fixed text.
 */
export type FloorParam = 'a' | 'b' | { text: string };

const C = { text: '0'.repeat(120) };
const PAD = { text: '0'.repeat(60) };

export function paramsOf(statement: FloorStatement): FloorParam[] {
  switch (statement) {
    case 'begin':
    case 'commit':
      return [];
    case 'pointSelect':
    case 'indexUpdate':
    case 'delete':
      return ['a'];
    case 'simpleRange':
    case 'sumRange':
    case 'orderRange':
    case 'distinctRange':
      return ['a', 'b'];
    case 'nonIndexUpdate':
      return [C, 'a'];
    case 'insert':
      return ['a', 'b', C, PAD];
    case 'insertNew':
      return ['a', C, PAD];
  }
}

/** Whether a statement's answer is a result set (a SELECT) rather than one OK. */
export const returnsRows = (statement: FloorStatement): boolean =>
  statement === 'pointSelect' || statement.endsWith('Range');

/**
 * How a step draws its ints: an id; a range (an id and the id plus the range size less one); a
 * DELETE of a pair (the id, kept as the row); the pair's INSERT (that row, and a fresh id as its
 * k); nothing (BEGIN, COMMIT).
 */
export type Draw = 'id' | 'range' | 'pairDelete' | 'pairInsert' | 'none';

export function drawOf(kind: FloorKind): Draw {
  switch (kind) {
    case 'begin':
    case 'commit':
      return 'none';
    case 'simpleRange':
    case 'sumRange':
    case 'orderRange':
    case 'distinctRange':
      return 'range';
    case 'deletePair':
      return 'pairDelete';
    case 'insertPair':
      return 'pairInsert';
    default:
      return 'id';
  }
}
