import { tenantFromHost } from './resolve-tenant';

describe('tenantFromHost', () => {
  it.each([
    ['acme.localhost', 'localhost', 'acme'],
    ['acme.localhost:4001', 'localhost', 'acme'],
    ['ACME.LocalHost', 'localhost', 'acme'],
    ['acme-2.api.example.com', 'api.example.com', 'acme-2'],
    ['acme.api.example.com.', 'api.example.com', 'acme'],
  ])('when the host is %s under %s, then the tenant is %s', (host, base, tenant) => {
    expect(tenantFromHost(host, base)).toBe(tenant);
  });

  it.each([
    ['localhost', 'no tenant label'],
    ['a.b.localhost', 'nested labels'],
    ['acme_x.localhost', 'invalid characters'],
    ['-acme.localhost', 'leading hyphen'],
    ['acme.example.com', 'another domain'],
    ['acme.notlocalhost', 'a suffix that only looks alike'],
    ['', 'empty'],
  ])('when the host is %s (%s), then there is no tenant', (host) => {
    expect(tenantFromHost(host, 'localhost')).toBeUndefined();
  });
});
