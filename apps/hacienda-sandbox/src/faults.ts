// Fault injection for clients' retry tests: the next N calls to one interface answer with a 5xx or hang
// past the client's timeout. Kept in memory on purpose: a restart clearing injected faults is the safe side.
import type { RequestHandler } from 'express';
import type { SandboxFaultRequest, SandboxFaultTarget } from '@cr/contracts';

interface Fault {
  mode: 'status' | 'timeout';
  remaining: number;
  status: number;
  timeoutMs: number;
}

export class FaultInjector {
  private readonly faults = new Map<SandboxFaultTarget, Fault>();
  private readonly pending = new Set<NodeJS.Timeout>();

  set(request: SandboxFaultRequest): void {
    this.faults.set(request.target, {
      mode: request.mode,
      remaining: request.count,
      status: request.status ?? 503,
      timeoutMs: request.timeoutMs ?? 30_000,
    });
  }

  clear(): void {
    this.faults.clear();
  }

  list(): Array<{
    target: SandboxFaultTarget;
    mode: string;
    remaining: number;
    status: number;
    timeoutMs: number;
  }> {
    return [...this.faults.entries()].map(([target, f]) => ({ target, ...f }));
  }

  /** Takes one fault for `target`, if any is left. */
  take(target: SandboxFaultTarget): Fault | undefined {
    const fault = this.faults.get(target);
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults.delete(target);
    return fault;
  }

  middleware(target: SandboxFaultTarget, matches: (method: string, path: string) => boolean): RequestHandler {
    return (req, res, next) => {
      if (!matches(req.method, req.path)) return next();
      const fault = this.take(target);
      if (!fault) return next();
      if (fault.mode === 'status') {
        res.status(fault.status).json({ error: 'service_unavailable', message: 'injected fault' });
        return;
      }
      // Hang, then drop the connection without an answer, as an overloaded gateway does.
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        req.socket.destroy();
      }, fault.timeoutMs);
      this.pending.add(timer);
      res.on('close', () => {
        clearTimeout(timer);
        this.pending.delete(timer);
      });
    };
  }

  close(): void {
    for (const t of this.pending) clearTimeout(t);
    this.pending.clear();
  }
}
