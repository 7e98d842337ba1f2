import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_FAILURES } from '../../../src/panel/accounts.ts';
import { ADMIN, AUDITOR } from '../../support/http.ts';
import { PanelClient, startPanelService, type PanelService } from '../../support/panel.ts';

/** The panel against a hostile visitor: what a proxy header, odd bytes or a weak password may do. */
let p: PanelService;
beforeAll(async () => {
  // One proxy in front, which appends the address it saw to X-Forwarded-For.
  p = await startPanelService({ TRUST_PROXY: '1' }, { accounts: [ADMIN, AUDITOR] });
});
afterAll(async () => {
  await p?.stop();
});

describe('TRUST_PROXY as a number of hops', () => {
  it('throttles by the address the nearest proxy saw, whatever a client writes to the left of it', async () => {
    const statuses = [];
    for (let i = 0; i < FREE_FAILURES + 2; i++) {
      const c = new PanelClient(p.service, { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.7` });
      statuses.push((await c.signIn('probador@empresa.co', `mala-${i}`)).status);
    }
    expect(statuses).toEqual([...Array<number>(FREE_FAILURES).fill(401), 429, 429]);
  });
});
