import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Config } from './config/config.ts';
import type { Logger } from './logger.ts';

/** Set by the service on the command it starts (its start-up rebuild): src/cli/lifeline.ts reads it. */
export const CALLER_LIFELINE = 'VACACIONES_CALLER_LIFELINE';

/** The command line beside this module: compiled (`npm start`), or from the sources through tsx. */
function commandLine(): string[] {
  const fromSources = import.meta.url.endsWith('.ts');
  const file = fileURLToPath(new URL(fromSources ? './cli/run.ts' : './cli/run.js', import.meta.url));
  return fromSources ? ['--import', 'tsx', file] : [file];
}

/**
 * A start-up rebuild run as `vacaciones projections rebuild <names>` in a process of its own, on the
 * service's database and event store. Run inside the service, a large rebuild raised the
 * server's peak RSS by a third (its heap filled to the limit with the replay's rows, and kept); its own process takes that memory and gives it all back, with the young generation the
 * bulk commands run with. Its lines go to the service's log; it ends when the service does, however
 * the service ends. Fails with the command's last line when it ends otherwise than with success.
 */
export function rebuildInProcessOfItsOwn(config: Config, logger: Logger): (names: readonly string[]) => Promise<void> {
  return (names) =>
    new Promise<void>((resolve, reject) => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: config.databaseUrl,
        EVENT_STORE: config.eventStore,
        [CALLER_LIFELINE]: '1',
      };
      if (config.kurrentdbUrl) env.KURRENTDB_URL = config.kurrentdbUrl;
      const child = spawn(process.execPath, [...commandLine(), 'projections', 'rebuild', ...names], {
        env,
        // Its standard input, held open by this process alone, ends when this process does:
        // the command then stops too (stopWithCaller), even after a SIGKILL here.
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let last = '';
      for (const stream of [child.stdout, child.stderr]) {
        createInterface({ input: stream }).on('line', (line) => {
          if (line.trim() === '') return;
          last = line;
          logger.info({ component: 'projections' }, line);
        });
      }
      child.on('error', reject);
      // Once its output is read to the end too, so that the last line is the command's last.
      child.on('close', (code, signal) => {
        if (code === 0) resolve();
        else reject(new Error(last || `the rebuild ended with ${signal ?? `exit code ${code}`}`));
      });
    });
}
