import { throttleAddress } from './throttle-address';

describe('throttleAddress', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:198.51.100.1', '198.51.100.1'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:0000:0000:0000:0009', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.33', '64:ff9b:0:0::/64'],
    ['2001:db8:1:2:3:4:192.0.2.33', '2001:db8:1:2::/64'],
    ['unknown', 'unknown'],
  ])('when the address is %s, then the throttle counts %s', (ip, key) => {
    expect(throttleAddress(ip)).toBe(key);
  });

  it('when two addresses share a /64, then they are one client; another /64 is another', () => {
    expect(throttleAddress('2001:db8:aa:bb::1')).toBe(throttleAddress('2001:db8:aa:bb:ffff:ffff:ffff:ffff'));
    expect(throttleAddress('2001:db8:aa:bb::1')).not.toBe(throttleAddress('2001:db8:aa:bc::1'));
  });
});
