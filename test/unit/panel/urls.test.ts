import { describe, expect, it } from 'vitest';
import { html, url } from '../../../src/panel/html.ts';
import { attachment } from '../../../src/panel/views/audit-steps.ts';

describe('addresses the panel writes into its pages', () => {
  it('URL-encode every value put into them, wherever it goes', () => {
    const value = 'a b&c=d#e/f?g%é';
    expect(url`/panel/trabajador/${value}/vacaciones`).toBe('/panel/trabajador/a%20b%26c%3Dd%23e%2Ff%3Fg%25%C3%A9/vacaciones');
    expect(url`/panel/auditoria?documento=${value}&codigo=${'VAC_1'}`).toBe(
      '/panel/auditoria?documento=a%20b%26c%3Dd%23e%2Ff%3Fg%25%C3%A9&codigo=VAC_1',
    );
    expect(url`#${'x"y'}`).toBe('#x%22y');
    expect(new URL(url`/p?documento=${value}&paso=${3}`, 'http://x').searchParams.get('documento')).toBe(value);
  });

  it('are then HTML-escaped once by the markup template', () => {
    expect(html`<a href="${url`/panel/auditoria?documento=${'1&2'}&formato=csv`}">`.value).toBe(
      '<a href="/panel/auditoria?documento=1%262&amp;formato=csv">',
    );
  });

  it('name a download both ways: plainly, and as it is in RFC 5987 form', () => {
    expect(attachment('auditoria-1020307007.csv')).toBe(
      `attachment; filename="auditoria-1020307007.csv"; filename*=UTF-8''auditoria-1020307007.csv`,
    );
    expect(attachment(`auditoria-a"b;c d'é(1).csv`)).toBe(
      `attachment; filename="auditoria-a_b_c_d___1_.csv"; filename*=UTF-8''auditoria-a%22b%3Bc%20d%27%C3%A9%281%29.csv`,
    );
  });
});
