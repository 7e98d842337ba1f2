import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyApiKey } from '../../../src/security/api-keys.ts';
import { cliTarget, type CliTarget } from '../reference/helpers.ts';

let cli: CliTarget;
beforeAll(async () => {
  cli = await cliTarget();
});
afterAll(async () => {
  await cli?.dispose();
});

describe('vacaciones apikey', () => {
  let key = '';

  it('create prints the key alone on the last line, and only its hash is stored', async () => {
    const r = await cli.run('apikey', 'create', '--name', 'nomina');
    expect(r.code).toBe(0);
    key = r.stdout.at(-1)!;
    expect(key).toMatch(/^vac_[A-Za-z0-9_-]{43}$/);
    expect(r.stdout[0]).toMatch(/^created API key "nomina" .* scopes: vacaciones, contratos:verificar$/);
    await cli.inspect(async (db) => {
      const rows = await db.query('SELECT * FROM api_keys');
      expect(JSON.stringify(rows.rows)).not.toContain(key);
      expect(await verifyApiKey(db, key)).toMatchObject({ name: 'nomina' });
    });
  });

  it('create takes repeated --scope options', async () => {
    const r = await cli.run('apikey', 'create', '--name', 'portal', '--scope', 'contratos:verificar');
    expect(r.code).toBe(0);
    await cli.inspect(async (db) => {
      expect((await verifyApiKey(db, r.stdout.at(-1)!))!.scopes).toEqual(['contratos:verificar']);
    });
  });

  it('refuses a duplicate name or an unknown scope with a one-line reason', async () => {
    const dup = await cli.run('apikey', 'create', '--name', 'nomina');
    expect(dup.code).toBe(1);
    expect(dup.stdout).toEqual([]);
    expect(dup.stderr).toEqual(['vacaciones: an API key named "nomina" already exists']);
    const scope = await cli.run('apikey', 'create', '--name', 'otra', '--scope', 'todo');
    expect(scope.code).toBe(1);
    expect(scope.stderr).toEqual([
      'vacaciones: unknown scope "todo": allowed scopes are vacaciones, contratos:verificar, auditoria, eventos',
    ]);
  });

  it('create --usuario binds the key to an administrator of the reference data, and to no one else', async () => {
    expect((await cli.run('import', 'test/fixtures/reference-data.json')).code).toBe(0);
    const r = await cli.run('apikey', 'create', '--name', 'ana', '--usuario', 'Admin@Empresa.co');
    expect(r.code).toBe(0);
    expect(r.stdout[0]).toMatch(/^created API key "ana" .* scopes: vacaciones, contratos:verificar, acting only as admin@empresa\.co$/);
    await cli.inspect(async (db) => {
      expect(await verifyApiKey(db, r.stdout.at(-1)!)).toMatchObject({ name: 'ana', userEmail: 'admin@empresa.co' });
    });
    const employee = await cli.run('apikey', 'create', '--name', 'pepe', '--usuario', 'empleado@empresa.co');
    expect(employee.code).toBe(1);
    expect(employee.stderr).toEqual([
      'vacaciones: empleado@empresa.co is not an administrator in the reference data: a key can only be bound to one',
    ]);
    expect((await cli.run('apikey', 'list')).stdout.find((l) => l.startsWith('ana '))).toContain('admin@empresa.co');
  });

  it('list shows names, prefixes and scopes but never a key', async () => {
    const r = await cli.run('apikey', 'list');
    expect(r.code).toBe(0);
    expect(r.stdout[0]).toMatch(/^NAME\s+PREFIX\s+SCOPES\s+USER\s+CREATED\s+REVOKED$/);
    const nomina = r.stdout.find((l) => l.startsWith('nomina '))!;
    expect(nomina).toContain(`${key.slice(0, 12)}...`);
    expect(nomina).toContain('vacaciones,contratos:verificar');
    expect(r.stdout.join('\n')).not.toContain(key);
  });

  it('revoke stops the key at once; revoking an unknown name fails', async () => {
    const r = await cli.run('apikey', 'revoke', 'nomina');
    expect(r.code).toBe(0);
    expect(r.stdout).toEqual(['revoked API key "nomina"']);
    await cli.inspect(async (db) => {
      expect(await verifyApiKey(db, key)).toBeNull();
    });
    const unknown = await cli.run('apikey', 'revoke', 'nadie');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toEqual(['vacaciones: no API key named "nadie"']);
  });
});
