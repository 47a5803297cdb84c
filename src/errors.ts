/** Exit codes are a contract (DESIGN.md): scripts branch on them. */
export const ExitCode = {
  ok: 0,
  checkFailed: 1,
  usage: 2,
  database: 3,
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** An error meant for the user: one line saying what is wrong and what to do, and an exit code. */
export class TxbenchError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = 'TxbenchError';
  }
}

/** Bad flags, values or configuration: exit 2, nothing started. */
export class UsageError extends TxbenchError {
  constructor(message: string) {
    super(message, ExitCode.usage);
    this.name = 'UsageError';
  }
}

/** The database could not be reached, refused us, or died: exit 3. */
export class DatabaseError extends TxbenchError {
  constructor(message: string) {
    super(message, ExitCode.database);
    this.name = 'DatabaseError';
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
