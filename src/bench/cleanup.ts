/**
 * What must be undone however the bench ends (servers stopped, temporary directories removed),
 * on success, on failure and on Ctrl-C: registered as the resources are made, run in reverse.
 */
type Undo = () => Promise<void>;

const undos: { name: string; undo: Undo }[] = [];
let interrupted = false;

/** Registers an undo; the returned function runs it now (once) and unregisters it. */
export function onCleanup(name: string, undo: Undo): () => Promise<void> {
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
}

export function wasInterrupted(): boolean {
  return interrupted;
}

/** Ctrl-C or SIGTERM: clean up and exit 130; a second signal exits at once. */
export function installSignalHandlers(): void {
  const handler = (signal: NodeJS.Signals): void => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error(`\nbench: ${signal}: stopping servers and removing temporary files (again to quit now)`);
    void cleanupAll().finally(() => process.exit(130));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
