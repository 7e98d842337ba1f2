import cliProgress from 'cli-progress';
import { processIo, type CliIo } from './context.ts';

/** A progress bar on standard error, one per phase; only drawn when standard error is a terminal. */
export interface PhaseBar {
  readonly drawn: boolean;
  /** `rate` defaults to what was done since the phase began, per second. */
  update(phase: string, done: number, total: number, unit: string, rate?: number): void;
  stop(): void;
}

export function phaseBar(io: CliIo): PhaseBar {
  const drawn = io === processIo && process.stderr.isTTY === true;
  let bar: cliProgress.SingleBar | undefined;
  let current: string | undefined;
  let phaseStart = performance.now();
  return {
    drawn,
    update(phase, done, total, unit, rate) {
      if (!drawn) return;
      if (phase !== current) {
        bar?.stop();
        bar = new cliProgress.SingleBar(
          {
            stream: process.stderr,
            format: `${phase.padEnd(8)} [{bar}] {percentage}% | {value}/{total} ${unit} | {rate} ${unit}/s | ETA {eta_formatted}`,
            etaBuffer: 20,
            hideCursor: true,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(Math.max(total, done), 0, { rate: 0 });
        current = phase;
        phaseStart = performance.now();
      }
      bar!.setTotal(Math.max(total, done));
      bar!.update(done, { rate: rate ?? Math.round(done / Math.max((performance.now() - phaseStart) / 1000, 0.001)) });
    },
    stop() {
      bar?.stop();
      bar = undefined;
      current = undefined;
    },
  };
}
