import { spawn } from 'node:child_process';

/** The bulk commands, by their first words. */
const BULK = [['import'], ['projections', 'rebuild']];
const YOUNG = '--max-semi-space-size=64';

/**
 * The bulk commands (an import, a rebuild) make millions of short-lived objects: with V8's
 * default young generation many of them outlive a collection and are copied to the old one,
 * and the collector took a quarter of a rebuild. They run in a process of their own with a
 * larger one (the flag takes effect only at start), unless the caller set it already. Answers
 * whether it relaunched: the child then runs the command and this process ends as it does.
 */
export function relaunchForBulk(argv: readonly string[] = process.argv): boolean {
  const args = argv.slice(2);
  const bulk = BULK.some((words) => words.every((w, i) => args[i] === w));
  const set = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => a.includes('--max-semi-space-size'));
  if (!bulk || set) return false;
  const child = spawn(process.execPath, [...process.execArgv, YOUNG, ...argv.slice(1)], { stdio: 'inherit' });
  const signals = ['SIGINT', 'SIGTERM'] as const;
  for (const signal of signals) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (!signal) process.exit(code ?? 1);
    // Ended by a signal: so does this process, as a shell or a supervisor expects.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
  return true;
}
