import { Option, type Command } from 'commander';
import { ReferenceRepository } from '../../reference/repository.ts';
import { ApiKeyError, createApiKey, listApiKeys, revokeApiKey } from '../../security/api-keys.ts';
import { CliError, withDb, type CliIo } from '../context.ts';

async function operatorErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiKeyError) throw new CliError(err.message);
    throw err;
  }
}

export function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

export function registerApiKey(program: Command, io: CliIo): void {
  const apikey = program.command('apikey').description('manage the API keys of calling systems');

  apikey
    .command('create')
    .description('create a key; it is printed once, on the last line, and never stored')
    .requiredOption('--name <name>', 'unique name of the calling system (never reusable)')
    .addOption(
      new Option(
        '--scope <scope>',
        'vacaciones, contratos:verificar, auditoria or eventos; repeatable; auditoria (whole histories exported) and eventos (the change feed) only when named',
      )
        .argParser((v: string, acc: string[]) => [...acc, v])
        .default([] as string[], 'vacaciones and contratos:verificar'),
    )
    .option(
      '--usuario <email>',
      'bind the key to one administrator of the reference data: it may only name that person as responsible, so the audit trail names who acted',
    )
    .action(async (opts: { name: string; scope: string[]; usuario?: string }) => {
      await withDb((db) =>
        operatorErrors(async () => {
          if (opts.usuario !== undefined) {
            const user = await new ReferenceRepository(db).userByEmail(opts.usuario.trim());
            if (!user?.isAdmin) {
              throw new CliError(`${opts.usuario} is not an administrator in the reference data: a key can only be bound to one`);
            }
          }
          const k = await createApiKey(db, { name: opts.name, scopes: opts.scope, userEmail: opts.usuario });
          const bound = k.userEmail ? `, acting only as ${k.userEmail}` : '';
          io.out(`created API key "${k.name}" (id ${k.id}) with scopes: ${k.scopes.join(', ')}${bound}`);
          io.out('store it now: it cannot be shown again');
          // Alone on the last line so scripts can take it with `tail -n 1`.
          io.out(k.key);
        }),
      );
    });

  apikey
    .command('list')
    .description('list keys (never the keys themselves)')
    .action(async () => {
      await withDb(async (db) => {
        const keys = await listApiKeys(db);
        if (keys.length === 0) {
          io.out('no API keys');
          return;
        }
        const rows = [['NAME', 'PREFIX', 'SCOPES', 'USER', 'CREATED', 'REVOKED']];
        for (const k of keys) {
          rows.push([k.name, `vac_${k.prefix}...`, k.scopes.join(','), k.userEmail ?? '-', k.createdAt, k.revokedAt ?? '-']);
        }
        for (const line of table(rows)) io.out(line);
      });
    });

  apikey
    .command('revoke')
    .description('revoke a key at once')
    .argument('<name>', 'name of the key')
    .action(async (name: string) => {
      await withDb((db) =>
        operatorErrors(async () => {
          const r = await revokeApiKey(db, name);
          io.out(r.alreadyRevoked ? `API key "${r.name}" was already revoked at ${r.revokedAt}` : `revoked API key "${r.name}"`);
        }),
      );
    });
}
