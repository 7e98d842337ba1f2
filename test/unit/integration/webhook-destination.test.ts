import { describe, expect, it } from 'vitest';
import { addressRefusal, shownUrl, vetDestination, type Resolve } from '../../../src/integration/webhooks/destination.ts';

/** A resolver that knows only the names given, so that no test depends on the machine's DNS. */
const resolver =
  (names: Record<string, string[]>): Resolve =>
  async (host) => {
    const list = names[host];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

const none = resolver({});
const vet = (url: string, allowPrivate = false, resolve: Resolve = none) => vetDestination(new URL(url), allowPrivate, resolve);

describe('webhook destinations', () => {
  it.each([
    // Loopback in every notation the URL parser reads as IPv4.
    ['http://127.0.0.1/', '127.0.0.1', 'de loopback'],
    ['http://2130706433/', '127.0.0.1', 'de loopback'],
    ['http://0x7f000001/', '127.0.0.1', 'de loopback'],
    ['http://0177.0.0.1/', '127.0.0.1', 'de loopback'],
    ['http://127.1/', '127.0.0.1', 'de loopback'],
    ['http://0x7f.1/', '127.0.0.1', 'de loopback'],
    ['http://[::1]/', '::1', 'de loopback'],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1', 'de loopback'],
    ['http://[::ffff:127.0.0.1]:8080/', '::ffff:7f00:1', 'de loopback'],
    // The cloud's metadata address and the rest of link-local.
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254', 'de enlace local'],
    ['http://0xa9fea9fe/', '169.254.169.254', 'de enlace local'],
    ['http://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe', 'de enlace local'],
    ['http://[fe80::1]/', 'fe80::1', 'de enlace local'],
    // Private networks, shared CGNAT, unique-local.
    ['http://10.0.0.5/', '10.0.0.5', 'privada (RFC 1918)'],
    ['http://172.16.3.4/', '172.16.3.4', 'privada (RFC 1918)'],
    ['http://192.168.1.1/', '192.168.1.1', 'privada (RFC 1918)'],
    ['http://012.0.0.1/', '10.0.0.1', 'privada (RFC 1918)'],
    ['http://100.64.0.1/', '100.64.0.1', 'compartida de CGNAT (100.64.0.0/10)'],
    ['http://[fc00::1]/', 'fc00::1', 'local única (fc00::/7)'],
    ['http://[fd12:3456::1]/', 'fd12:3456::1', 'local única (fc00::/7)'],
    // Unspecified (connects to the host itself), multicast, broadcast, reserved.
    ['http://0.0.0.0/', '0.0.0.0', 'no especificada'],
    ['http://0/', '0.0.0.0', 'no especificada'],
    ['http://[::]/', '::', 'no especificada'],
    ['http://224.0.0.1/', '224.0.0.1', 'de multidifusión'],
    ['http://[ff02::1]/', 'ff02::1', 'de multidifusión'],
    ['http://255.255.255.255/', '255.255.255.255', 'de difusión'],
    ['http://240.0.0.1/', '240.0.0.1', 'reservada'],
    ['http://192.0.2.1/', '192.0.2.1', 'reservada'],
    // NAT64 carrying an internal IPv4 address.
    ['http://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1', 'de loopback'],
    ['http://[64:ff9b::a9fe:a9fe]/', '64:ff9b::a9fe:a9fe', 'de enlace local'],
  ])('refuses %s (%s, %s)', async (url, address, words) => {
    const v = await vet(url);
    expect(v).toEqual({
      refused: `${address} es una dirección ${words}: los webhooks no se entregan a direcciones internas salvo con WEBHOOK_ALLOW_PRIVATE=1`,
    });
    // Allowed by the operator, the same address is the one connected to.
    expect(await vet(url, true)).toEqual({ address: { address, family: address.includes(':') ? 6 : 4 } });
  });

  it.each([
    ['https://8.8.8.8/hook', '8.8.8.8'],
    ['https://[2001:4860:4860::8888]/hook', '2001:4860:4860::8888'],
    ['https://[::ffff:8.8.8.8]/hook', '::ffff:808:808'],
    ['https://[64:ff9b::808:808]/hook', '64:ff9b::808:808'],
    ['http://100.128.0.1/', '100.128.0.1'],
    ['http://172.32.0.1/', '172.32.0.1'],
  ])('delivers to the public address %s', async (url, address) => {
    expect(await vet(url)).toEqual({ address: { address, family: address.includes(':') ? 6 : 4 } });
  });

  it('refuses a name when any address it resolves to is internal, and connects to the first otherwise', async () => {
    const names = resolver({
      'nomina.example.co': ['203.0.114.7', '2001:db9::7'],
      'mezcla.example.co': ['203.0.114.7', '10.1.2.3'],
      'local.example.co': ['::1'],
    });
    expect(await vet('https://nomina.example.co/hooks', false, names)).toEqual({ address: { address: '203.0.114.7', family: 4 } });
    expect(await vet('https://mezcla.example.co/hooks', false, names)).toEqual({
      refused:
        'mezcla.example.co resuelve a 10.1.2.3, una dirección privada (RFC 1918): los webhooks no se entregan a direcciones internas salvo con WEBHOOK_ALLOW_PRIVATE=1',
    });
    expect(await vet('https://local.example.co/', false, names)).toMatchObject({
      refused: expect.stringContaining('::1, una dirección de loopback'),
    });
    expect(await vet('https://mezcla.example.co/hooks', true, names)).toEqual({ address: { address: '203.0.114.7', family: 4 } });
    expect(await vet('https://nadie.example.co/', false, names)).toEqual({ unresolved: 'no se pudo resolver nadie.example.co: ENOTFOUND' });
  });

  it('refuses credentials in the URL and other schemes, allowed or not, without repeating the password', async () => {
    for (const allow of [false, true]) {
      const v = await vet('https://nomina:s3creta@8.8.8.8/hooks', allow);
      expect(v).toEqual({
        refused:
          'la URL lleva credenciales (usuario:contraseña@), que no se guardan: cada entrega va firmada con el secreto del webhook (https://***@8.8.8.8/hooks)',
      });
      expect(await vet('https://token@8.8.8.8/', allow)).toMatchObject({ refused: expect.stringContaining('credenciales') });
      expect(await vet('ftp://8.8.8.8/', allow)).toEqual({ refused: 'la URL debe ser http o https: ftp://8.8.8.8/' });
    }
  });

  it('shows URLs, alone or inside an error, without their credentials', () => {
    expect(shownUrl('https://nomina:s3creta@nomina.example.co/hooks?x=1')).toBe('https://***@nomina.example.co/hooks?x=1');
    expect(shownUrl('https://nomina.example.co/hooks')).toBe('https://nomina.example.co/hooks');
    expect(shownUrl('Request cannot be constructed from a URL that includes credentials: http://a:b%40c@h.co/x and http://t@h.co/')).toBe(
      'Request cannot be constructed from a URL that includes credentials: http://***@h.co/x and http://***@h.co/',
    );
  });

  it('classifies resolved addresses, the mapped form as the IPv4 it carries', () => {
    expect(addressRefusal('::ffff:10.0.0.1')).toBe('privada (RFC 1918)');
    expect(addressRefusal('203.0.114.7')).toBeUndefined();
    expect(addressRefusal('no es una dirección')).toBe('no válida');
  });
});
