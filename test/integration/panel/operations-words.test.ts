import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProjectors } from '../../../src/projections/index.ts';
import { addWebhook, giveUp } from '../../../src/integration/webhooks/repository.ts';
import { START } from '../../../src/store/types.ts';
import { ADMIN } from '../../support/http.ts';
import { PanelClient, startPanelService, type PanelService } from '../../support/panel.ts';

/** The page's text without its markup, the folded technical detail left out. */
const shown = (body: string) =>
  body
    .replace(/<details>[\s\S]*?<\/details>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');

describe('Operación in words', () => {
  let p: PanelService;
  let admin: PanelClient;
  beforeAll(async () => {
    p = await startPanelService({}, { accounts: [ADMIN] });
    admin = new PanelClient(p.service);
    await admin.signIn(ADMIN);
  }, 120_000);
  afterAll(async () => p?.stop());

  it('names every read model in Spanish and gives positions and lags their units, the technical names folded under «Detalle técnico»', async () => {
    const r = await admin.get('/panel/operacion');
    expect(r.status).toBe(200);
    const text = shown(r.body);
    for (const { label } of allProjectors) expect(text).toContain(label);
    for (const { name } of allProjectors) expect(text).not.toMatch(new RegExp(`\\b${name}\\b`));
    // No bare "843/30": a position says what it is, a lag counts events.
    expect(text).not.toMatch(/\d+\/\d+/);
    expect(text).toMatch(/Registros de vacaciones en marcha (evento en la posición|posición) [\d.]+.* \d+ eventos?/);
    expect(r.body).toMatch(/<details><summary>Detalle técnico<\/summary>[\s\S]*<code>worker-states<\/code>/);
  });

  it('lists each webhook with its dead letters (events given up on), never its secret', async () => {
    expect(shown((await admin.get('/panel/operacion')).body)).toContain('No hay webhooks configurados');
    const w = await addWebhook(p.service.db, { name: 'nomina-central', url: 'https://nomina.example.co/hooks', position: START });
    const at = { commit: 5n, prepare: 5n };
    expect(await giveUp(p.service.db, w.id, START, at, { id: '00000000-0000-4000-8000-000000000001', type: 'x' }, 9, 'HTTP 500')).toBe(
      true,
    );
    const r = await admin.get('/panel/operacion');
    const text = shown(r.body);
    expect(text).toMatch(/nomina-central nomina\.example\.co 0 0 1 /);
    expect(r.body).not.toContain(w.secret);
  });
});
