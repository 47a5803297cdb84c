/**
 * What must be undone however the bench ends (servers stopped, temporary directories removed,
 * children killed), on success, on failure and on Ctrl-C: registered as the resources are made,
 * run in reverse. After Ctrl-C nothing new may be made: registering runs the undo at once and
 * throws, so the section in progress fails fast and the bench reports what it measured.
 */
type Undo = () => Promise<void>;

const undos: { name: string; undo: Undo }[] = [];
const immediate = new Set<Promise<void>>();
let interrupted = false;

export class InterruptedError extends Error {
  constructor() {
    super('interrupted');
  }
}

/** Registers an undo; the returned function runs it now (once) and unregisters it. */
export function onCleanup(name: string, undo: Undo): () => Promise<void> {
  if (interrupted) {
    const running = undo().catch(() => undefined);
    immediate.add(running);
    throw new InterruptedError();
  }
  const entry = { name, undo };
  undos.push(entry);
  let ran = false;
  return async () => {
    if (ran) return;
    ran = true;
    const i = undos.indexOf(entry);
    if (i >= 0) undos.splice(i, 1);
    await undo();
  };
}

/** Runs every registered undo, newest first; a failing one does not stop the others. */
export async function cleanupAll(): Promise<void> {
  while (undos.length > 0) {
    const { name, undo } = undos.pop()!;
    await undo().catch((err: unknown) =>
      console.error(`bench: cleanup of ${name} failed: ${err instanceof Error ? err.message : String(err)}`),
    );
  }
  await Promise.all(immediate);
}

export function wasInterrupted(): boolean {
  return interrupted;
}

/**
 * Ctrl-C or SIGTERM: kill the children and stop the servers now; the bench then skips what is left,
 * prints and saves what was measured, and exits 130. A second signal exits at once.
 */
export function installSignalHandlers(): void {
  const handler = (signal: NodeJS.Signals): void => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error(`\nbench: ${signal}: stopping servers and children (again to quit now)`);
    void cleanupAll().finally(() => {
      // Should the bench not wind down by itself, do not hang: everything is cleaned up already.
      setTimeout(() => process.exit(130), 15_000).unref();
    });
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
