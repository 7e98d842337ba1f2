import { Option, type Command } from 'commander';
import { ROLES, type Role } from '../../panel/roles.ts';
import { INVITE_VALID_HOURS, PanelAccountError, createInvite, listAccounts, pendingInvites, revokeAccount } from '../../panel/accounts.ts';
import { CliError, withDb, type CliIo } from '../context.ts';
import { formatTable } from './projections.ts';

async function operatorErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof PanelAccountError) throw new CliError(err.message);
    throw err;
  }
}

/** Where people reach the service: --url, else PANEL_URL, else the address it listens on. */
function baseUrl(given: string | undefined): string {
  const raw = given ?? process.env.PANEL_URL ?? `http://${process.env.HOST || '127.0.0.1'}:${process.env.PORT || '3000'}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`--url ${raw} is not an address such as https://vacaciones.example.co`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`--url ${raw} must start with http:// or https://`);
  return url.origin + url.pathname.replace(/\/+$/, '');
}

export function registerPanel(program: Command, io: CliIo): void {
  const panel = program.command('panel').description("people's access to the web panel at /panel");

  panel
    .command('invite')
    .description(`print a one-time link (valid ${INVITE_VALID_HOURS} h) for an administrator to set a panel password`)
    .argument('<email>', 'e-mail of an administrator in the reference data')
    .option('--url <base>', 'address people use to reach the service (default: PANEL_URL, else http://HOST:PORT)')
    .addOption(
      new Option(
        '--rol <rol>',
        'what the person may do: administrador (everything), jefe (sees and approves the vacations of --subgerencia), auditor (reads and exports, changes nothing)',
      )
        .choices(ROLES)
        .default('administrador'),
    )
    .option('--subgerencia <id...>', 'for --rol jefe: the subgerencias the person answers for (one or more ids)')
    .action(async (email: string, opts: { url?: string; rol: Role; subgerencia?: string[] }) => {
      const base = baseUrl(opts.url);
      await withDb((db) =>
        operatorErrors(async () => {
          const invite = await createInvite(db, email, new Date(), { role: opts.rol, units: opts.subgerencia ?? [] });
          const scope = opts.rol === 'jefe' ? ` of ${(opts.subgerencia ?? []).join(', ')}` : '';
          io.out(`invitation for ${invite.email} as ${opts.rol}${scope}, valid until ${invite.expiresAt.toISOString()}; it works once`);
          io.out('send it to that person only: whoever opens it sets the password');
          // Alone on the last line so scripts can take it with `tail -n 1`.
          io.out(`${base}/panel/invitacion/${invite.token}`);
        }),
      );
    });

  panel
    .command('list')
    .description('panel accounts and pending invitations (never a password or a link)')
    .action(async () => {
      await withDb(async (db) => {
        const [accounts, invites] = await Promise.all([listAccounts(db), pendingInvites(db)]);
        if (accounts.length === 0 && invites.length === 0) {
          io.out('no panel accounts or pending invitations');
          return;
        }
        const rows = accounts.map((a) => [
          a.email,
          a.role === 'jefe' ? `jefe (${a.units.join(', ')})` : a.role,
          a.revokedAt ? 'revoked' : a.lockedUntil ? `locked until ${a.lockedUntil}` : 'active',
          a.createdAt,
          a.lastSignIn ?? '-',
        ]);
        for (const i of invites) rows.push([i.email, '-', `invited, link valid until ${i.expiresAt}`, i.createdAt, '-']);
        for (const line of formatTable(['EMAIL', 'ROLE', 'STATE', 'CREATED', 'LAST SIGN-IN'], rows)) io.out(line);
      });
    });

  panel
    .command('revoke')
    .description('close an account at once: its sessions end and its pending links stop working')
    .argument('<email>', 'e-mail of the account')
    .action(async (email: string) => {
      await withDb((db) =>
        operatorErrors(async () => {
          const r = await revokeAccount(db, email);
          io.out(
            `revoked panel access of ${email.trim().toLowerCase()}: ${r.sessions} session(s) ended, ${r.invites} pending link(s) cancelled`,
          );
        }),
      );
    });
}
