import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECTOR_LABELS } from '../../../src/panel/views/operations.ts';
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
    for (const label of Object.values(PROJECTOR_LABELS)) expect(text).toContain(label);
    for (const name of Object.keys(PROJECTOR_LABELS)) expect(text).not.toMatch(new RegExp(`\\b${name}\\b`));
    // No bare "843/30": a position says what it is, a lag counts events.
    expect(text).not.toMatch(/\d+\/\d+/);
    expect(text).toMatch(/Registros de vacaciones en marcha (evento en la posición|posición) [\d.]+.* \d+ eventos?/);
    expect(r.body).toMatch(/<details><summary>Detalle técnico<\/summary>[\s\S]*<code>worker-states<\/code>/);
  });
});
