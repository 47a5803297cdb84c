/**
 * The process's CPU while several targets run in it at once. `process.cpuUsage()` is process-wide
 * and every target runs on the same thread, so no part of it can be charged to one target: it is
 * measured once, over the time at least one target's measured window was open.
 */
import { cpuUsage } from 'node:process';
import type { Phase } from '../engine/engine-result.js';
import type { ProcessCpu } from '../metrics/client-cpu.js';

export interface CpuClock {
  cpu(): NodeJS.CpuUsage;
  nowMs(): number;
}

const PROCESS_CLOCK: CpuClock = { cpu: () => cpuUsage(), nowMs: () => performance.now() };

export class SharedCpu {
  private open = 0;
  private spanStart: NodeJS.CpuUsage | undefined;
  private spanStartMs = 0;
  private userUs = 0;
  private systemUs = 0;
  private ms = 0;
  private measured = false;

  constructor(private readonly clock: CpuClock = PROCESS_CLOCK) {}

  /** A phase listener for one target: its measured window opens at 'measure' and closes at 'drain'. */
  forTarget(): (phase: Phase | 'precondition') => void {
    let inWindow = false;
    return (phase) => {
      if (phase === 'measure' && !inWindow) {
        inWindow = true;
        this.windowOpened();
      } else if ((phase === 'drain' || phase === 'done') && inWindow) {
        inWindow = false;
        this.windowClosed();
      }
    };
  }

  /** CPU and seconds over the union of the windows; null when no window opened. */
  result(): (ProcessCpu & { seconds: number }) | null {
    if (!this.measured) return null;
    return { userUs: this.userUs, systemUs: this.systemUs, seconds: this.ms / 1000 };
  }

  private windowOpened(): void {
    if (this.open++ > 0) return;
    this.measured = true;
    this.spanStart = this.clock.cpu();
    this.spanStartMs = this.clock.nowMs();
  }

  private windowClosed(): void {
    if (--this.open > 0 || this.spanStart === undefined) return;
    const end = this.clock.cpu();
    this.userUs += end.user - this.spanStart.user;
    this.systemUs += end.system - this.spanStart.system;
    this.ms += this.clock.nowMs() - this.spanStartMs;
    this.spanStart = undefined;
  }
}
