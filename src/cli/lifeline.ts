import { CALLER_LIFELINE } from '../rebuild-process.ts';
import type { CliIo } from './context.ts';

/**
 * A command the service started ends when the service does, however the service ends (SIGKILL
 * included): the service holds the command's standard input open for as long as it lives, and
 * the input's end is the sign. Without it, the rebuild of a service stopped during its start-up
 * ran on until its next line of output failed on the broken pipe, or, with no line to come, swapped
 * its tables in after the service had gone. Ending mid-way is safe: the swap is one transaction,
 * the locks are the connection's, and the next rebuild drops half-built tables.
 */
export function stopWithCaller(io: CliIo, what: string): void {
  if (process.env[CALLER_LIFELINE] !== '1') return;
  const gone = () => {
    io.err(`vacaciones: the service that started this ${what} has stopped; the ${what} stops too`);
    process.exit(1);
  };
  process.stdin.on('end', gone);
  process.stdin.on('error', gone);
  process.stdin.resume();
  // Never what keeps the command running: it ends by itself once its work is done.
  process.stdin.unref();
}
