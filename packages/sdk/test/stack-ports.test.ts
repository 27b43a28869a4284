// @cr/stack chooses its three ports before any service listens (each needs the others' addresses). A port
// taken in between, as by a test run beside this one, must not fail the tests that start a stack.
import { type Server, createServer } from 'node:net';
import { type Stack, startStack } from '@cr/stack';

jest.setTimeout(180_000);

async function listening(server: Server): Promise<number> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no address');
  return address.port;
}

async function unusedPort(): Promise<number> {
  const server = createServer();
  const port = await listening(server);
  await new Promise((done) => server.close(done));
  return port;
}

describe('startStack when a port it chose is taken before it listens', () => {
  const other = createServer();
  let stack: Stack | undefined;
  afterAll(async () => {
    await stack?.stop();
    await new Promise((done) => other.close(done));
  });

  it('when the auth-server cannot bind its port, then the stack starts on other ports and serves', async () => {
    const taken = await listening(other);
    let chosen = 0;
    stack = await startStack({
      choosePort: async () => (chosen++ === 0 ? taken : unusedPort()),
    });
    expect(chosen).toBe(6); // the first three, then three new ones
    expect(new URL(stack.authUrl).port).not.toBe(String(taken));
    expect((await fetch(`${stack.authUrl}/.well-known/jwks.json`)).status).toBe(200);
    await stack.createTenant('ports', 'ports-password-123');
  });
});
