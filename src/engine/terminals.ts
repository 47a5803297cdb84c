/**
 * The terminals an engine drives: each one's random stream and card deck, and its next
 * submission, which type and when it falls due (keying and think times, or its script).
 */
import { Rng, deriveSeed } from '../random/rng.js';
import { CardDeck } from './deck.js';
import type { EngineConfig, TerminalScript } from './engine-config.js';
import { thinkTimeMs } from './pacing.js';
import type { TerminalContext } from './types.js';

export interface Terminal extends TerminalContext {
  readonly deck: CardDeck;
}

/** When a terminal's next submission falls due: now, later (at its `dueAt`), or never (its script is done). */
export type NextSubmission = 'now' | 'later' | 'done';

export class Terminals {
  /** By index in this engine (0 … terminals - 1); `id` is the terminal's id in the whole run. */
  readonly context: Terminal[];
  /** The type of each terminal's next (or current) submission. */
  readonly typeOf: Uint32Array;
  /** When the terminal's submission became due (response time runs from here). */
  readonly dueAt: Float64Array;
  /**
   * When it was scheduled to be due: the same as dueAt, except for a scripted terminal still busy
   * with its previous submission at its next one's scheduled time. Lateness runs from here.
   */
  readonly scheduledAt: Float64Array;
  private readonly keyingMs: Float64Array;
  private readonly thinkMs: Float64Array;

  constructor(private readonly config: EngineConfig) {
    const n = config.terminals;
    this.typeOf = new Uint32Array(n);
    this.dueAt = new Float64Array(n);
    this.scheduledAt = new Float64Array(n);
    this.keyingMs = Float64Array.from(config.transactions, (t) => t.keyingS * 1000 * config.thinkScale);
    this.thinkMs = Float64Array.from(config.transactions, (t) => t.thinkMeanS * 1000 * config.thinkScale);
    this.context = new Array<Terminal>(n);
    const first = config.firstTerminal ?? 0;
    for (let i = 0; i < n; i++) {
      const rng = new Rng(deriveSeed(config.seed, 0x7e51, first + i));
      this.context[i] = { id: first + i, rng, deck: new CardDeck(config.deck, rng) };
    }
  }

  /**
   * Terminal `id` chooses its next transaction and keys it in, starting at `fromMs` (its think
   * time first, `withThink`); a scripted one takes its script's next, due `startedAt` + its time.
   */
  next(id: number, fromMs: number, withThink: boolean, startedAt: number): NextSubmission {
    const script = this.config.script;
    if (script) return this.nextScripted(script, id, fromMs, startedAt);
    const t = this.context[id]!;
    const type = t.deck.draw();
    this.typeOf[id] = type;
    const think = withThink ? thinkTimeMs(t.rng, this.thinkMs[type]!) : 0;
    const due = fromMs + think + this.keyingMs[type]!;
    this.dueAt[id] = due;
    this.scheduledAt[id] = due;
    return due <= fromMs && withThink ? 'now' : 'later';
  }

  /**
   * A scripted terminal's next submission: at its scheduled time, or now if that has passed. The
   * script knows the terminal by its id in the whole run (a worker's slice does not start at 0).
   */
  private nextScripted(
    script: TerminalScript,
    index: number,
    fromMs: number,
    startedAt: number,
  ): NextSubmission {
    const id = this.context[index]!.id;
    const type = script.nextType(id);
    if (type < 0) return 'done';
    this.typeOf[index] = type;
    const scheduled = startedAt + script.dueAtMs(id);
    this.scheduledAt[index] = scheduled;
    const due = Math.max(scheduled, fromMs);
    this.dueAt[index] = due;
    return due <= fromMs ? 'now' : 'later';
  }
}
