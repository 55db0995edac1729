// Ctrl-C during a long command: stop cleanly while that is still possible, and say what happened.

/** A command stopped by Ctrl-C: printed as `moomem: INTERRUPTED: <message>`, exit 130 (128 + SIGINT). */
export class Interrupted extends Error {
  readonly status = 130;

  constructor(message: string) {
    super(message);
    this.name = "Interrupted";
  }
}

/** What a Ctrl-C does at each point of a job. */
export interface InterruptPlan {
  /** The first Ctrl-C before {@link InterruptWatch.commit}: stop the job; nothing has changed yet. */
  stop(): void;
  /** The first Ctrl-C after it: the job finishes; say so. */
  finishing(): void;
  /** A second Ctrl-C after it: say what state things are in; the process then exits with 130 at once. */
  abandoned(): string;
}

/** Watches for SIGINT from {@link watchInterrupts} until {@link InterruptWatch.end}. */
export interface InterruptWatch {
  /** True once a Ctrl-C came before the commit point (the job was told to stop). */
  readonly stopped: boolean;
  /** From here on the job cannot be stopped without being cut short: finish it instead. */
  commit(): void;
  end(): void;
}

/**
 * Takes over Ctrl-C for one job (the default would kill the process without a word). Before the
 * commit point a Ctrl-C stops the job; after it the first one lets it finish and a second one exits
 * at once, each time saying what that means for the data.
 */
export function watchInterrupts(plan: InterruptPlan, stderr: NodeJS.WritableStream): InterruptWatch {
  let committed = false;
  let stopped = false;
  let warned = false;
  const onSignal = (): void => {
    if (!committed) {
      if (stopped) return;
      stopped = true;
      plan.stop();
      return;
    }
    if (!warned) {
      warned = true;
      plan.finishing();
      return;
    }
    stderr.write(`moomem: INTERRUPTED: ${plan.abandoned()}\n`);
    process.exit(130);
  };
  process.on("SIGINT", onSignal);
  return {
    get stopped(): boolean {
      return stopped;
    },
    commit(): void {
      committed = true;
    },
    end(): void {
      process.off("SIGINT", onSignal);
    },
  };
}
