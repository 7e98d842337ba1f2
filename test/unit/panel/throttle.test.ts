import { describe, expect, it } from 'vitest';
import { clientOf } from '../../../src/panel/throttle.ts';

describe('the client address a sign-in is counted against', () => {
  it('is an IPv4 address as it is, also when written as IPv6', () => {
    expect(clientOf({ ip: '10.0.0.7' })).toBe('10.0.0.7');
    expect(clientOf({ ip: '::ffff:10.0.0.7' })).toBe('10.0.0.7');
  });

  it('is the /64 network of an IPv6 address, however it is written', () => {
    const one = clientOf({ ip: '2001:db8:0:1::1' });
    expect(one).toBe('2001:db8:0:1::/64');
    expect(clientOf({ ip: '2001:0DB8:0000:0001:ffff:ffff:ffff:ffff' })).toBe(one);
    expect(clientOf({ ip: '2001:db8::1:0:0:0:5' })).toBe(one);
    expect(clientOf({ ip: '2001:db8:0:2::1' })).not.toBe(one);
    expect(clientOf({ ip: '::1' })).toBe('0:0:0:0::/64');
  });
});
