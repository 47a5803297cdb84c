/**
 * What must be undone however the bench ends (servers stopped, temporary directories removed,
 * children killed), on success, on failure and on Ctrl-C: registered as the resources are made,
 * run in reverse. After Ctrl-C nothing new may be made: registering runs the undo at once and
 * throws, so the section in progress fails fast and the bench reports what it measured.
 */
type Undo = () => Promise<void>;

export class InterruptedError extends Error {
  constructor() {
    super('interrupted');
  }
}

/**
 * One bench's undos: main.ts makes it and hands it to whatever makes a resource; its signal
 * handlers are installed and removed by it. A test that starts a server makes one of its own.
 */
export class Cleanup {
  private readonly undos: { name: string; undo: Undo }[] = [];
  private readonly immediate = new Set<Promise<void>>();
  private interrupted = false;

  /** Registers an undo; the returned function runs it now (once) and unregisters it. */
  onCleanup(name: string, undo: Undo): () => Promise<void> {
    if (this.interrupted) {
      const running = undo().catch(() => undefined);
      this.immediate.add(running);
      throw new InterruptedError();
    }
    const entry = { name, undo };
    this.undos.push(entry);
    let ran = false;
    return async () => {
      if (ran) return;
      ran = true;
      const i = this.undos.indexOf(entry);
      if (i >= 0) this.undos.splice(i, 1);
      await undo();
    };
  }

  /** Runs every registered undo, newest first; a failing one does not stop the others. */
  async cleanupAll(): Promise<void> {
    while (this.undos.length > 0) {
      const { name, undo } = this.undos.pop()!;
      await undo().catch((err: unknown) =>
        console.error(
          `bench: cleanup of ${name} failed: ${err instanceof Error ? err.message : String(err)}`,
        ),
      );
    }
    await Promise.all(this.immediate);
  }

  wasInterrupted(): boolean {
    return this.interrupted;
  }

  /**
   * Ctrl-C or SIGTERM: kill the children and stop the servers now; the bench then skips what is
   * left, prints and saves what was measured, and exits 130. A second signal exits at once.
   */
  installSignalHandlers(): void {
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  removeSignalHandlers(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }

  private readonly onSignal = (signal: NodeJS.Signals): void => {
    if (this.interrupted) process.exit(130);
    this.interrupted = true;
    console.error(`\nbench: ${signal}: stopping servers and children (again to quit now)`);
    void this.cleanupAll().finally(() => {
      // Should the bench not wind down by itself, do not hang: everything is cleaned up already.
      setTimeout(() => process.exit(130), 15_000).unref();
    });
  };
}
