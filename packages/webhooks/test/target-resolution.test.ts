// The guarded lookup against local fake name servers (UDP on 127.0.0.1): one that answers A/AAAA from a
// small zone, one that swallows every query like an attacker's server that never answers.
import { pbkdf2 } from 'node:crypto';
import dgram from 'node:dgram';
import type { LookupAddress, LookupOptions } from 'node:dns';
import http from 'node:http';
import net, { type AddressInfo, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { TargetRefusedError, checkTargetResolves, guardedLookup } from '../src';

const strict = { allowPrivateTargets: false, allowHttpLoopback: false };
const dev = { allowPrivateTargets: true, allowHttpLoopback: true };

type Zone = Record<string, { A?: string[]; AAAA?: string[] }>;
const TYPE_A = 1;
const TYPE_AAAA = 28;

/** A name server for `zone` (NXDOMAIN for other names), or one that never answers when `zone` is 'silent'. */
class FakeDns {
  readonly queries: string[] = [];
  private readonly socket = dgram.createSocket('udp4');

  constructor(private readonly zone: Zone | 'silent') {}

  async start(): Promise<string> {
    this.socket.on('message', (query, peer) => this.answer(query, peer));
    await new Promise<void>((resolve) => this.socket.bind(0, '127.0.0.1', resolve));
    return `127.0.0.1:${this.socket.address().port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private answer(query: Buffer, peer: dgram.RemoteInfo): void {
    const labels: string[] = [];
    let offset = 12;
    while (query[offset]! > 0) {
      labels.push(query.subarray(offset + 1, offset + 1 + query[offset]!).toString());
      offset += query[offset]! + 1;
    }
    const name = labels.join('.').toLowerCase();
    const type = query.readUInt16BE(offset + 1);
    this.queries.push(`${name} ${type === TYPE_A ? 'A' : type === TYPE_AAAA ? 'AAAA' : type}`);
    if (this.zone === 'silent') return;
    const records = this.zone[name];
    const addresses = (type === TYPE_A ? records?.A : type === TYPE_AAAA ? records?.AAAA : undefined) ?? [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(records ? 0x8180 : 0x8183, 2); // a response, recursion available; NXDOMAIN if unknown
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(addresses.length, 6);
    const answers = addresses.map((address) => {
      const rdata = Buffer.from(ipaddr.parse(address).toByteArray());
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      record.writeUInt16BE(type, 2);
      record.writeUInt16BE(1, 4);
      record.writeUInt32BE(60, 6);
      record.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([record, rdata]);
    });
    this.socket.send(
      Buffer.concat([header, query.subarray(12, offset + 5), ...answers]),
      peer.port,
      peer.address,
    );
  }
}

function lookupAll(lookup: LookupFunction, host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    lookup(host, { all: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses as unknown as LookupAddress[]),
    ),
  );
}

function lookupOne(
  lookup: LookupFunction,
  host: string,
  options: LookupOptions = {},
): Promise<[string, number]> {
  return new Promise((resolve, reject) =>
    lookup(host, options, (err, address, family) =>
      err ? reject(err) : resolve([address as string, family as number]),
    ),
  );
}

describe('guarded lookup through c-ares', () => {
  const zone: Zone = {
    'mixed-v6.test': { A: ['93.184.215.14'], AAAA: ['fd00::1'] },
    'mixed-v4.test': { A: ['10.0.0.5'], AAAA: ['2606:4700:4700::1111'] },
    'public.test': { A: ['93.184.215.14'], AAAA: ['2606:4700:4700::1111'] },
    'v6only.test': { AAAA: ['2606:4700:4700::1111'] },
    'inside.test': { A: ['127.0.0.1'] },
  };
  const fake = new FakeDns(zone);
  const silent = new FakeDns('silent');
  let servers: string[];
  let silentServers: string[];

  beforeAll(async () => {
    servers = [await fake.start()];
    silentServers = [await silent.start()];
  });
  afterAll(async () => {
    await fake.stop();
    await silent.stop();
  });
  beforeEach(() => {
    fake.queries.length = 0;
  });

  it('when a name resolves to one public and one private address, then it is refused whichever family is private', async () => {
    const lookup = guardedLookup(strict, { servers });
    await expect(lookupAll(lookup, 'mixed-v6.test')).rejects.toThrow(TargetRefusedError);
    await expect(lookupAll(lookup, 'mixed-v4.test')).rejects.toThrow(/non-public/);
    expect(fake.queries).toEqual(
      expect.arrayContaining([
        'mixed-v6.test A',
        'mixed-v6.test AAAA',
        'mixed-v4.test A',
        'mixed-v4.test AAAA',
      ]),
    );
    await expect(lookupAll(guardedLookup(dev, { servers }), 'mixed-v6.test')).resolves.toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: 'fd00::1', family: 6 },
    ]);
  });

  it('when a name has no A record, then its AAAA addresses are used', async () => {
    await expect(lookupAll(guardedLookup(strict, { servers }), 'v6only.test')).resolves.toEqual([
      { address: '2606:4700:4700::1111', family: 6 },
    ]);
  });

  it('when the name does not exist, then ENOTFOUND, not a policy refusal', async () => {
    const failure = checkTargetResolves(new URL('https://missing.test/hook'), strict, { servers });
    await expect(failure).rejects.toMatchObject({
      code: 'ENOTFOUND',
      message: expect.stringContaining('missing.test'),
    });
    await expect(failure).rejects.not.toBeInstanceOf(TargetRefusedError);
  });

  it('when one address is asked for, then the first IPv4 one comes with its family, or only the family asked', async () => {
    const lookup = guardedLookup(strict, { servers });
    await expect(lookupOne(lookup, 'public.test')).resolves.toEqual(['93.184.215.14', 4]);
    fake.queries.length = 0;
    await expect(lookupOne(lookup, 'public.test', { family: 6 })).resolves.toEqual([
      '2606:4700:4700::1111',
      6,
    ]);
    expect(fake.queries).toEqual(['public.test AAAA']);
  });

  it('when the host is an IP literal or localhost, then no DNS query is sent, and localhost is loopback only where private targets are allowed', async () => {
    await expect(lookupOne(guardedLookup(strict, { servers }), '93.184.215.14')).resolves.toEqual([
      '93.184.215.14',
      4,
    ]);
    await expect(lookupOne(guardedLookup(strict, { servers }), '[2606:4700:4700::1111]')).resolves.toEqual([
      '2606:4700:4700::1111',
      6,
    ]);
    await expect(lookupOne(guardedLookup(dev, { servers }), 'localhost')).resolves.toEqual(['127.0.0.1', 4]);
    await expect(lookupAll(guardedLookup(dev, { servers }), 'api.localhost')).resolves.toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    await expect(lookupOne(guardedLookup(strict, { servers }), 'localhost')).rejects.toThrow(/non-public/);
    await expect(lookupOne(guardedLookup(strict, { servers }), '127.0.0.1')).rejects.toThrow(/non-public/);
    expect(fake.queries).toEqual([]);
  });

  describe('as the lookup of a socket', () => {
    let server: http.Server;
    let port: number;
    let connections = 0;
    beforeAll(async () => {
      server = http.createServer((_req, res) => res.end('ok'));
      server.on('connection', () => connections++);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    function get(policy: typeof strict): Promise<number> {
      return new Promise((resolve, reject) => {
        const req = http.get(
          {
            host: 'inside.test',
            port,
            // A fresh connection each time: a kept-alive one would skip the lookup under test.
            agent: false,
            lookup: guardedLookup(policy, { servers }),
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
      });
    }

    it('when the name resolves to an allowed address, then the request reaches it (all-addresses form)', async () => {
      await expect(get(dev)).resolves.toBe(200);
    });

    it('when the socket asks for a single address, then it connects to it', async () => {
      const socket = net.connect({
        host: 'inside.test',
        port,
        autoSelectFamily: false,
        lookup: guardedLookup(dev, { servers }),
      });
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      expect(socket.remoteAddress).toBe('127.0.0.1');
      socket.destroy();
    });

    it('when the name resolves inside and private targets are not allowed, then the connection is never made', async () => {
      const before = connections;
      await expect(get(strict)).rejects.toThrow(TargetRefusedError);
      expect(connections).toBe(before);
    });
  });

  it('when the name server never answers, then the lookups fail with ETIMEOUT and thread-pool work is not held up meanwhile', async () => {
    const events: string[] = [];
    const lookup = guardedLookup(strict, { servers: silentServers, timeoutMs: 1_000, tries: 2 });
    // As many stalled lookups as libuv has pool threads by default: with getaddrinfo they would hold them all.
    const lookups = [1, 2, 3, 4].map((n) =>
      lookupAll(lookup, `hook${n}.slow.test`).then(
        () => events.push('lookup answered'),
        (err: NodeJS.ErrnoException) => events.push(`lookup ${err.code}`),
      ),
    );
    const hashes = [1, 2, 3, 4].map(
      (n) =>
        new Promise<void>((resolve, reject) =>
          pbkdf2('password', `salt${n}`, 10_000, 32, 'sha256', (err) => {
            if (err) return reject(err);
            events.push('pbkdf2');
            resolve();
          }),
        ),
    );
    await Promise.all([...lookups, ...hashes]);
    expect(events).toEqual([...Array(4).fill('pbkdf2'), ...Array(4).fill('lookup ETIMEOUT')]);
    // The queries did go to the silent server, A and AAAA for each name, and no more than `tries` of each.
    expect(new Set(silent.queries)).toEqual(
      new Set([1, 2, 3, 4].flatMap((n) => [`hook${n}.slow.test A`, `hook${n}.slow.test AAAA`])),
    );
    expect(silent.queries.length).toBeLessThanOrEqual(4 * 2 * 2);
  });
});
