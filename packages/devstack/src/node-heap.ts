// How big each service's V8 heap may grow (ADR 0031), and how glibc's malloc gives memory back (ADR 0045), the
// same in every form a service runs in.
//
// Node sizes the heap from the memory it sees. In a container with a memory limit that is the limit: the
// default manifests' 512 MiB (tenant-api) give a 256 MB old generation and 1 MB semi-spaces. On a bare
// machine it is all of RAM: 16 GB give a 4 GB old generation that V8 lets grow to four times the live set
// before collecting, and 16 MB semi-spaces. The same tenant-api held ~200 MB at rest and ~390 MB under 20
// invoices/s there, most of it garbage not yet collected.
// - The young generation is fixed at 4 MB semi-spaces everywhere (the images set it in NODE_OPTIONS too):
//   16 MB held 24 MB more for no CPU the benchmarks could see; 1 MB (what a 512 MiB container would give)
//   cost 10–15% more CPU per accepted invoice.
// - The old generation: the images leave it to the container's limit. `pnpm start` and the benches give
//   each service what its default manifest's limit would (half of it), so a laptop sees what production
//   sees. The sandbox has no manifest; it gets the tenant-api's size.
import type { ServiceName } from './service-databases';

export const SEMI_SPACE_MB = 4;

export const SERVICE_HEAP_MB: Record<ServiceName, number> = {
  'auth-server': 128,
  'tenant-api': 256,
  'hacienda-sandbox': 256,
};

/**
 * NODE_OPTIONS for a service started outside a container: the heap flags first, then whatever the caller
 * already had (`inherited`), so an operator's own `--max-old-space-size` still wins (the last one counts).
 */
export function serviceNodeOptions(service: ServiceName, inherited = ''): string {
  const own = `--max-semi-space-size=${SEMI_SPACE_MB} --max-old-space-size=${SERVICE_HEAP_MB[service]}`;
  return inherited.trim() ? `${own} ${inherited.trim()}` : own;
}

/**
 * glibc's threshold above which malloc maps a block of its own and unmaps it when freed: its starting default,
 * held fixed. glibc otherwise raises it to the size of each mapped block freed (up to 32 MB), after which
 * such blocks come from its heaps, where freed memory stays resident: on PGlite the sandbox held ~70 MB and
 * the tenant-api ~30 MB more for it (ADR 0045). Setting it turns the raising off.
 */
export const MALLOC_MMAP_THRESHOLD_BYTES = 128 * 1024;

/**
 * The memory settings of a service started outside a container, as its image sets them: NODE_OPTIONS
 * (`serviceNodeOptions`) and glibc's `MALLOC_MMAP_THRESHOLD_`. A value the caller set itself wins.
 */
export function serviceMemoryEnv(
  service: ServiceName,
  inherited: { NODE_OPTIONS?: string; MALLOC_MMAP_THRESHOLD_?: string } = {},
): { NODE_OPTIONS: string; MALLOC_MMAP_THRESHOLD_: string } {
  return {
    NODE_OPTIONS: serviceNodeOptions(service, inherited.NODE_OPTIONS),
    MALLOC_MMAP_THRESHOLD_: inherited.MALLOC_MMAP_THRESHOLD_ || String(MALLOC_MMAP_THRESHOLD_BYTES),
  };
}
