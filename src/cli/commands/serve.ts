import type { Command } from 'commander';
import { setFlagsFromString } from 'node:v8';
import { loadConfig } from '../../config/config.ts';
import { createLogger } from '../../logger.ts';
import type { CliIo } from '../context.ts';

export function registerServe(program: Command, _io: CliIo): void {
  program
    .command('serve')
    .description('migrate, start the projectors and serve HTTP on HOST:PORT')
    .option('--no-projections', 'do not run projectors in this process (another instance runs them)')
    .action(async (opts: { projections: boolean }) => {
      // V8 moves allocation sites whose objects often outlive a young-generation collection to
      // old space from birth. Here that catches request-scoped objects that merely wait on the
      // database for a few milliseconds: on some starts of the same build old space then filled
      // twice as fast, with twice the major collections and a much higher p99 (bench/http.ts). Off, every run behaves like the good ones and better. Set before any
      // request; the flag is only read by the collector, so setting it now takes effect.
      setFlagsFromString('--no-allocation-site-pretenuring');
      const config = loadConfig();
      const logger = createLogger(config);
      // The HTTP service is loaded by this command alone: the others start a quarter of a second sooner.
      const { createService } = await import('../../service.ts');
      const service = await createService(config, logger, { projections: opts.projections });
      const address = await service.app.listen({ port: config.port, host: config.host });
      logger.info(
        {
          address,
          database: config.databaseUrl ? 'postgres' : `pglite (${config.dataDir})`,
          eventStore: config.eventStore,
          today: config.today ?? 'America/Bogota',
        },
        'vacaciones service listening',
      );
      await new Promise<void>((resolve) => {
        let stopping = false;
        const stop = (signal: string) => {
          if (stopping) return;
          stopping = true;
          logger.info({ signal }, 'shutting down: draining requests, stopping projectors');
          const force = setTimeout(() => {
            logger.error('shutdown took longer than 15 s; exiting');
            process.exit(1);
          }, 15_000);
          force.unref();
          service
            .close()
            .catch((err) => logger.error({ err }, 'error during shutdown'))
            .finally(() => {
              logger.info('stopped');
              resolve();
            });
        };
        process.once('SIGTERM', () => stop('SIGTERM'));
        process.once('SIGINT', () => stop('SIGINT'));
      });
    });
}
