import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may be delivered. A subscription names its receiver by URL, and the service
 * sends from inside the network it runs in: a URL that reaches the service's own host, the cloud's
 * metadata address or another internal machine would let whoever adds a webhook make requests
 * there. Only public unicast addresses are delivered to, unless the operator allows internal ones
 * (WEBHOOK_ALLOW_PRIVATE=1). The check is made when a subscription is added and again before each
 * delivery, on the addresses the name resolves to then; the delivery connects to the address
 * checked, so a name that resolves differently a moment later (DNS rebinding) is not followed.
 */

/** The words for each kind of address refused, as ipaddr.js names its ranges. */
const KIND_WORDS: Record<string, string> = {
  loopback: 'de loopback',
  linkLocal: 'de enlace local',
  private: 'privada (RFC 1918)',
  carrierGradeNat: 'compartida de CGNAT (100.64.0.0/10)',
  uniqueLocal: 'local única (fc00::/7)',
  unspecified: 'no especificada',
  multicast: 'de multidifusión',
  broadcast: 'de difusión',
};

/** IPv6 ranges whose last 32 bits are an IPv4 address the packets reach (mapped, translated, NAT64). */
const EMBEDS_IPV4 = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052']);

/**
 * Why an IP address is no destination, in words ("de loopback"), or undefined for a public
 * unicast address. Every range but public unicast is refused: documentation, benchmarking,
 * 6to4 and Teredo ranges included, which no payroll system listens on.
 */
export function addressRefusal(address: string): string | undefined {
  if (isIP(address) === 0) return 'no válida';
  let ip = ipaddr.parse(address);
  let range = ip.range();
  if (ip.kind() === 'ipv6' && EMBEDS_IPV4.has(range)) {
    const bytes = ip.toByteArray().slice(-4);
    ip = ipaddr.fromByteArray(bytes);
    range = ip.range();
  }
  if (range === 'unicast') return undefined;
  return KIND_WORDS[range] ?? 'reservada';
}

export interface Resolved {
  address: string;
  family: 4 | 6;
}

export type Resolve = (hostname: string) => Promise<Resolved[]>;

const systemResolve: Resolve = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/**
 * A URL as shown to people, or a text that holds URLs (a delivery's last error): each URL's user
 * and password as ***. A subscription added before credentials were refused may hold them, and
 * an error may quote its URL.
 */
export function shownUrl(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi, '$1***@');
}

/** Why a subscription's URL is refused before any address is looked at, or undefined. */
export function urlRefusal(url: URL): string | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `la URL debe ser http o https: ${shownUrl(url.href)}`;
  if (url.username !== '' || url.password !== '') {
    return `la URL lleva credenciales (usuario:contraseña@), que no se guardan: cada entrega va firmada con el secreto del webhook (${shownUrl(url.href)})`;
  }
  return undefined;
}

export type Vetted = { address: Resolved } | { refused: string } | { unresolved: string };

/**
 * The address to connect to for `url`, checked: its host when it is an IP address (the URL
 * parser has already read decimal, hex, octal and short IPv4 forms as one), else every address
 * the name resolves to, refused when any is internal (unless `allowPrivate`), since a resolver
 * may answer with any of them.
 */
export async function vetDestination(url: URL, allowPrivate: boolean, resolve: Resolve = systemResolve): Promise<Vetted> {
  const refused = urlRefusal(url);
  if (refused !== undefined) return { refused };
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(host);
  let addresses: Resolved[];
  if (family !== 0) addresses = [{ address: host, family: family === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await resolve(host);
    } catch (err) {
      return { unresolved: `no se pudo resolver ${host}: ${(err as { code?: string }).code ?? (err as Error).message}` };
    }
    if (addresses.length === 0) return { unresolved: `no se pudo resolver ${host}` };
  }
  if (!allowPrivate) {
    for (const a of addresses) {
      const why = addressRefusal(a.address);
      if (why === undefined) continue;
      const what = family !== 0 ? `${a.address} es una dirección ${why}` : `${host} resuelve a ${a.address}, una dirección ${why}`;
      return { refused: `${what}: los webhooks no se entregan a direcciones internas salvo con WEBHOOK_ALLOW_PRIVATE=1` };
    }
  }
  return { address: addresses[0]! };
}
