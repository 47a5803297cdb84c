/**
 * One run directory written outside a run session's measurements (cli/replay.ts): its results
 * saved as a session saves them, with the command line read from this process's arguments.
 * Goes when replay runs on the run path (issue 31, item 3).
 */
import { RunSession, type RunDirectory } from '../api.js';
import { commandLineOf } from './command-line.js';
import { printedOutputs } from './run-outputs.js';

export async function saveResults(
  runDir: RunDirectory,
  json: string | undefined,
  content: object,
  histograms?: Record<string, string>,
): Promise<void> {
  const session = new RunSession(printedOutputs(undefined), commandLineOf(process.argv.slice(2)));
  await session.saveResults(runDir, json, content, histograms);
}
