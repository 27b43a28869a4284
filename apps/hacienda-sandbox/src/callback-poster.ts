// The POST of a document's status to its callbackUrl, over connections kept open between callbacks (as a
// server that calls back many times an hour to the same few receivers would keep them). Through node:http
// rather than fetch: one callback cost 0.33–0.61 ms of CPU through fetch (undici builds a Request, tees its
// body stream and reads the answer as a web stream) and 0.07–0.14 ms through http.request, on loopback with
// the status body's size (docs/performance.md, "tenant-api (pipeline cost): what changed it").
import http from 'node:http';
import https from 'node:https';

// A kept connection idle this long is closed by us: under the 5 s after which Node's HTTP server (the
// tenant-api's receiver) and many others close an idle one, so a callback is not written into a connection
// the receiver is closing at that moment (an ECONNRESET, a failed attempt).
const KEPT_IDLE_MS = 4_000;

export class CallbackPoster {
  private readonly agents: Record<'http:' | 'https:', http.Agent>;

  constructor(
    private readonly timeoutMs: number,
    keptIdleMs = KEPT_IDLE_MS,
  ) {
    // keepAlive: a free socket is unref'd, so an idle connection never holds the process open. The agent's
    // timeout closes free sockets only; a request's own deadline is below.
    const options = { keepAlive: true, timeout: keptIdleMs };
    this.agents = { 'http:': new http.Agent(options), 'https:': new https.Agent(options) };
  }

  /**
   * POSTs `body` as JSON and resolves with the answer's status once its body has been read; redirects are
   * not followed (a 3xx is that status). Rejects when no answer came within the timeout, the connection
   * failed or the URL is not http(s).
   */
  post(url: string, body: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const target = new URL(url);
      const client = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : undefined;
      if (!client) return reject(new Error(`callbackUrl is not http(s): ${target.protocol}`));
      const payload = Buffer.from(body, 'utf8');
      const req = client.request(
        target,
        {
          method: 'POST',
          agent: this.agents[target.protocol as 'http:' | 'https:'],
          headers: { 'content-type': 'application/json', 'content-length': payload.length },
        },
        (res) => {
          res.on('error', fail);
          res.on('end', () => {
            clearTimeout(deadline);
            resolve(res.statusCode ?? 0);
          });
          res.resume();
        },
      );
      // One deadline for the whole exchange, as fetch's AbortSignal.timeout was: a receiver that answers
      // slowly byte by byte is cut off too.
      const deadline = setTimeout(
        () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
      function fail(err: Error): void {
        clearTimeout(deadline);
        reject(err);
      }
      req.on('error', fail);
      req.end(payload);
    });
  }

  /** Closes the kept connections (the processor's close). */
  close(): void {
    for (const agent of Object.values(this.agents)) agent.destroy();
  }
}
