import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiKeyError,
  createApiKey,
  hasScope,
  listApiKeys,
  parseAuthorizationHeader,
  revokeApiKey,
  verifyApiKey,
} from '../../../src/security/api-keys.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

let t: TestDb;
beforeAll(async () => {
  t = await freshDb();
});
afterAll(async () => {
  await t?.drop();
});

describe('API keys', () => {
  it('creates a key with both scopes by default and stores only its SHA-256', async () => {
    const k = await createApiKey(t.db, { name: 'nomina-prod' });
    expect(k.key).toMatch(/^vac_[A-Za-z0-9_-]{43}$/);
    expect(k.scopes).toEqual(['vacaciones', 'contratos:verificar']);
    const rows = await t.db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE name = $1', ['nomina-prod']);
    const row = rows.rows[0]!;
    expect(row.key_hash).toBe(createHash('sha256').update(k.key).digest('hex'));
    expect(row.prefix).toBe(k.key.slice(4, 12));
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(k.key);
    expect(stored).not.toContain(k.key.slice(12));
  });

  it('gives auditoria only to a key that names it, never by default', async () => {
    const plain = await createApiKey(t.db, { name: 'sin-alcances', scopes: [] });
    expect(plain.scopes).toEqual(['vacaciones', 'contratos:verificar']);
    expect(hasScope((await verifyApiKey(t.db, plain.key))!, 'auditoria')).toBe(false);
    const auditor = await createApiKey(t.db, { name: 'auditoria-externa', scopes: ['auditoria'] });
    expect(auditor.scopes).toEqual(['auditoria']);
    const principal = (await verifyApiKey(t.db, auditor.key))!;
    expect(hasScope(principal, 'auditoria')).toBe(true);
    expect(hasScope(principal, 'vacaciones')).toBe(false);
  });

  it('verifies a live key and nothing else', async () => {
    const k = await createApiKey(t.db, { name: 'portal', scopes: ['contratos:verificar'] });
    const principal = await verifyApiKey(t.db, k.key);
    expect(principal).toEqual({ id: k.id, name: 'portal', scopes: ['contratos:verificar'], userEmail: null });
    expect(hasScope(principal!, 'contratos:verificar')).toBe(true);
    expect(hasScope(principal!, 'vacaciones')).toBe(false);
    const tampered = k.key.slice(0, -1) + (k.key.endsWith('A') ? 'B' : 'A');
    expect(await verifyApiKey(t.db, tampered)).toBeNull();
    expect(await verifyApiKey(t.db, '')).toBeNull();
    expect(await verifyApiKey(t.db, 'vac_short')).toBeNull();
    expect(await verifyApiKey(t.db, k.key + ' ')).toBeNull();
  });

  it('stops accepting a key the moment it is revoked, and never reuses its name', async () => {
    const k = await createApiKey(t.db, { name: 'temporal' });
    expect(await verifyApiKey(t.db, k.key)).not.toBeNull();
    const r = await revokeApiKey(t.db, 'temporal');
    expect(r.alreadyRevoked).toBe(false);
    expect(await verifyApiKey(t.db, k.key)).toBeNull();
    const again = await revokeApiKey(t.db, 'temporal');
    expect(again).toEqual({ name: 'temporal', revokedAt: r.revokedAt, alreadyRevoked: true });
    await expect(createApiKey(t.db, { name: 'temporal' })).rejects.toThrow(/revoked key; names are never reused/);
  });

  it('rejects duplicate names, unknown scopes, bad names and unknown keys', async () => {
    await expect(createApiKey(t.db, { name: 'nomina-prod' })).rejects.toThrow('an API key named "nomina-prod" already exists');
    await expect(createApiKey(t.db, { name: 'otro', scopes: ['vacaciones', 'admin'] })).rejects.toThrow(
      'unknown scope "admin": allowed scopes are vacaciones, contratos:verificar, auditoria, eventos',
    );
    await expect(createApiKey(t.db, { name: 'con espacio' })).rejects.toBeInstanceOf(ApiKeyError);
    await expect(revokeApiKey(t.db, 'nadie')).rejects.toThrow('no API key named "nadie"');
    const names = (await listApiKeys(t.db)).map((k) => k.name);
    expect(names).not.toContain('otro');
  });

  it('keeps scopes in a canonical order without duplicates', async () => {
    const k = await createApiKey(t.db, { name: 'ordenada', scopes: ['contratos:verificar', 'vacaciones', 'vacaciones'] });
    expect(k.scopes).toEqual(['vacaciones', 'contratos:verificar']);
  });

  it('lists keys without ever showing a key or its hash', async () => {
    const k = await createApiKey(t.db, { name: 'listada' });
    const list = await listApiKeys(t.db);
    const entry = list.find((e) => e.name === 'listada')!;
    expect(entry).toEqual({
      id: k.id,
      name: 'listada',
      prefix: k.key.slice(4, 12),
      scopes: ['vacaciones', 'contratos:verificar'],
      userEmail: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      revokedAt: null,
    });
    expect(list.find((e) => e.name === 'temporal')!.revokedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const text = JSON.stringify(list);
    expect(text).not.toContain(k.key);
    expect(text).not.toContain(createHash('sha256').update(k.key).digest('hex'));
    expect(Object.keys(entry)).not.toContain('keyHash');
  });
});

describe('parseAuthorizationHeader', () => {
  it('accepts exactly "Bearer <key>" with any case and one or more spaces', () => {
    expect(parseAuthorizationHeader('Bearer vac_abc')).toBe('vac_abc');
    expect(parseAuthorizationHeader('bearer   vac_abc')).toBe('vac_abc');
    expect(parseAuthorizationHeader('BEARER vac_abc')).toBe('vac_abc');
  });

  it('rejects every other form', () => {
    for (const v of [
      undefined,
      null,
      '',
      'Bearer',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      'Bearervac_abc',
      'Bearer a b',
      ' Bearer vac_abc',
      'Bearer\tvac_abc',
      'Token vac_abc',
    ]) {
      expect(parseAuthorizationHeader(v), String(v)).toBeNull();
    }
  });
});
