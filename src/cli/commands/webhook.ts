import { Option, type Command } from 'commander';
import { FEED_TYPES, cursorKeyOf, cursorOf, positionOfCursor } from '../../integration/feed.ts';
import {
  WebhookError,
  addWebhook,
  deadLettersOf,
  listWebhooks,
  removeWebhook,
  replayWebhook,
} from '../../integration/webhooks/repository.ts';
import { shownUrl } from '../../integration/webhooks/destination.ts';
import { openEventStore } from '../../store/open.ts';
import type { EventStore } from '../../store/types.ts';
import { CliError, withDb, type CliIo } from '../context.ts';
import { table } from './apikey.ts';
import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/types.ts';

async function withStore<T>(fn: (db: Db, store: EventStore, config: Config) => Promise<T>): Promise<T> {
  return withDb(async (db, config: Config) => {
    const store = await openEventStore(config, db);
    try {
      return await fn(db, store, config);
    } catch (err) {
      if (err instanceof WebhookError) throw new CliError(err.message);
      throw err;
    } finally {
      await store.close();
    }
  });
}

const repeatable = (v: string, acc: string[]) => [...acc, v];

/** `vacaciones webhook`: the subscriptions that receive each business event, signed, as it happens. */
export function registerWebhook(program: Command, io: CliIo): void {
  const webhook = program.command('webhook').description('manage the webhook subscriptions of payroll systems');

  webhook
    .command('add')
    .description('subscribe a URL to the business events from now on; the signing secret is printed once, on the last line')
    .requiredOption('--nombre <name>', 'unique name of the subscription')
    .requiredOption('--url <url>', 'where each event is POSTed (http or https; a public address unless WEBHOOK_ALLOW_PRIVATE=1)')
    .addOption(
      new Option('--tipo <type>', `an event type to deliver; repeatable; all by default (${FEED_TYPES.join(', ')})`)
        .argParser(repeatable)
        .default([] as string[], 'all'),
    )
    .action(async (opts: { nombre: string; url: string; tipo: string[] }) => {
      await withStore(async (db, store, config) => {
        const w = await addWebhook(db, {
          name: opts.nombre,
          url: opts.url,
          types: opts.tipo,
          position: await store.headPosition(),
          allowPrivate: config.webhookAllowPrivate,
        });
        io.out(`created webhook "${w.name}" delivering ${w.types?.join(', ') ?? 'every business event'} to ${w.url}`);
        io.out('keep this signing secret (Standard Webhooks); it is not shown again:');
        io.out(w.secret);
      });
    });

  webhook
    .command('list')
    .description('list subscriptions, their delivery state and the events given up on (never the secrets)')
    .action(async () => {
      await withStore(async (db, store) => {
        const hooks = await listWebhooks(db);
        if (hooks.length === 0) {
          io.out('no webhooks');
          return;
        }
        const key = await cursorKeyOf(db, store);
        const rows = [['NAME', 'URL', 'TYPES', 'DELIVERED', 'FAILURES', 'NEXT ATTEMPT', 'LAST ERROR', 'POSITION']];
        for (const w of hooks) {
          rows.push([
            w.name,
            shownUrl(w.url),
            w.types?.join(',') ?? 'all',
            String(w.delivered),
            String(w.failures),
            w.nextAttemptAt?.toISOString() ?? '-',
            w.lastError === null ? '-' : shownUrl(w.lastError),
            cursorOf(key, w.position),
          ]);
        }
        for (const line of table(rows)) io.out(line);
        for (const w of hooks) {
          const dead = await deadLettersOf(db, w.id);
          if (dead.length === 0) continue;
          io.out(`dead letters of "${w.name}" (${dead.length}):`);
          for (const d of dead)
            io.out(
              `  ${d.eventId}  ${d.type}  ${d.attempts} attempts  ${d.failedAt}  ${d.lastError === null ? '-' : shownUrl(d.lastError)}`,
            );
        }
      });
    });

  webhook
    .command('remove')
    .description('delete a subscription at once (its dead letters with it)')
    .argument('<name>', 'name of the subscription')
    .action(async (name: string) => {
      await withStore(async (db) => {
        await removeWebhook(db, name);
        io.out(`removed webhook "${name}"`);
      });
    });

  webhook
    .command('replay')
    .description('deliver again every event after a cursor of the change feed (GET /api/eventos), or from the first with --desde inicio')
    .argument('<name>', 'name of the subscription')
    .requiredOption('--desde <cursor>', 'a "siguiente" cursor of the feed, or "inicio"')
    .action(async (name: string, opts: { desde: string }) => {
      await withStore(async (db, store) => {
        const p = opts.desde === 'inicio' ? { commit: 0n, prepare: 0n } : positionOfCursor(opts.desde, await cursorKeyOf(db, store));
        if (p === 'malformed') throw new CliError(`--desde ${opts.desde} is no cursor of the change feed`);
        if (p === 'otherDatabase') throw new CliError(`--desde ${opts.desde} is a cursor of another database`);
        await replayWebhook(db, name, p);
        io.out(`webhook "${name}" delivers again from ${opts.desde}`);
      });
    });
}
