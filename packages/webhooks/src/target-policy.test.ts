import { checkTargetUrl, guardedLookup, isPublicAddress, TargetRefusedError } from './target-policy';

const strict = { allowPrivateTargets: false, allowHttpLoopback: false };
const dev = { allowPrivateTargets: true, allowHttpLoopback: true };

describe('webhook target policy', () => {
  it.each([
    ['http://example.com/hook', 'must use https'],
    ['https://user:pw@example.com/hook', 'must not carry credentials'],
    ['https://10.0.0.5/hook', 'private'],
    ['https://192.168.1.1/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'private'],
    ['https://127.0.0.1/hook', 'private'],
    ['https://[::1]/hook', 'private'],
    ['https://[::ffff:10.0.0.1]/hook', 'private'],
    ['https://[::7f00:1]/hook', 'private'],
    ['https://localhost/hook', 'private'],
    ['not a url', 'absolute URL'],
    ['ftp://example.com/x', 'must use https'],
  ])('when the URL is %s, then it is refused (%s)', (url, reason) => {
    expect(() => checkTargetUrl(url, strict)).toThrow(TargetRefusedError);
    expect(() => checkTargetUrl(url, strict)).toThrow(new RegExp(reason.replace(/[()]/g, '')));
  });

  it('when the URL is public https, then it is accepted', () => {
    expect(checkTargetUrl('https://hooks.example.com/cr?x=1', strict).hostname).toBe('hooks.example.com');
    expect(checkTargetUrl('https://8.8.8.8/x', strict).hostname).toBe('8.8.8.8');
  });

  it('when development allows loopback, then http to localhost is accepted but http elsewhere is not', () => {
    expect(checkTargetUrl('http://127.0.0.1:9999/hook', dev).port).toBe('9999');
    expect(() => checkTargetUrl('http://example.com/hook', dev)).toThrow('must use https');
  });

  it.each([
    ['https://hooks.example.com:22/hook', 22],
    ['https://hooks.example.com:25/hook', 25],
    ['https://hooks.example.com:80/hook', 80],
    ['https://hooks.example.com:1023/hook', 1023],
    ['https://hooks.example.com:0/hook', 0],
    ['https://8.8.8.8:53/hook', 53],
  ])('when the URL %s uses a well-known port, then it is refused naming the port', (url, port) => {
    expect(() => checkTargetUrl(url, strict)).toThrow(
      new TargetRefusedError(`port ${port} is not allowed; use 443 or a port from 1024`),
    );
  });

  it.each([
    'https://hooks.example.com/hook',
    'https://hooks.example.com:443/hook',
    'https://hooks.example.com:1024/hook',
    'https://hooks.example.com:8443/hook',
    'https://hooks.example.com:65535/hook',
  ])('when the URL %s uses 443 or a port from 1024, then it is accepted', (url) => {
    expect(checkTargetUrl(url, strict).hostname).toBe('hooks.example.com');
  });

  it('when private targets are allowed, then port 80 is accepted only where plain http is (loopback)', () => {
    expect(checkTargetUrl('http://127.0.0.1/hook', dev).port).toBe('');
    expect(checkTargetUrl('http://localhost:80/hook', dev).hostname).toBe('localhost');
    expect(() => checkTargetUrl('https://10.0.0.5:80/hook', dev)).toThrow('port 80 is not allowed');
    expect(() => checkTargetUrl('http://127.0.0.1:22/hook', dev)).toThrow('port 22 is not allowed');
    expect(() => checkTargetUrl('https://10.0.0.5:25/hook', dev)).toThrow('port 25 is not allowed');
    expect(checkTargetUrl('https://10.0.0.5:8443/hook', dev).port).toBe('8443');
  });

  it('when the address is private and the port well-known, then the address is the reason given', () => {
    expect(() => checkTargetUrl('https://10.0.0.5:22/hook', strict)).toThrow(/private/);
  });

  it('classifies addresses', () => {
    expect(isPublicAddress('8.8.8.8')).toBe(true);
    expect(isPublicAddress('172.16.0.1')).toBe(false);
    expect(isPublicAddress('100.64.0.1')).toBe(false);
    expect(isPublicAddress('fd00::1')).toBe(false);
    expect(isPublicAddress('2001:4860:4860::8888')).toBe(true);
    // IPv4-compatible (::/96, deprecated): refused whatever the IPv4 address inside.
    expect(isPublicAddress('::7f00:1')).toBe(false);
    expect(isPublicAddress('::a00:1')).toBe(false);
    expect(isPublicAddress('::808:808')).toBe(false);
  });

  it('when a name resolves to loopback at connection time, then the guarded lookup refuses it', async () => {
    const lookup = guardedLookup(strict);
    await expect(
      new Promise((resolve, reject) =>
        lookup('localhost', {}, (err, addr) => (err ? reject(err) : resolve(addr))),
      ),
    ).rejects.toThrow(/non-public/);
    const open = guardedLookup(dev);
    await expect(
      new Promise((resolve, reject) =>
        open('localhost', {}, (err, addr) => (err ? reject(err) : resolve(addr))),
      ),
    ).resolves.toBeDefined();
  });
});
