// Instants the CLI writes for a person are Costa Rica's wall-clock time with its offset, as the API writes
// fechaEmision and the dashboard shows every date: Costa Rica is UTC−06:00 all year (no daylight saving).
// With --json the CLI passes on what the API sent, unchanged.
const OFFSET_MS = 6 * 60 * 60 * 1000;

/** `2026-12-06T22:00:00-06:00` for 2026-12-07T04:00:00Z; a value that is not an instant is shown as it is. */
export function costaRicaTime(instant: string | number): string {
  const ms = typeof instant === 'number' ? instant : Date.parse(instant);
  if (!Number.isFinite(ms)) return String(instant);
  return `${new Date(ms - OFFSET_MS).toISOString().slice(0, 19)}-06:00`;
}
