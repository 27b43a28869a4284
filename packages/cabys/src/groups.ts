// Numbers grouped by a key in two flat typed arrays, and the numbering of string keys: the shapes the CABYS
// index and the packed catalogue keep their lists in (internal to the package).
/**
 * Lists of numbers grouped by a key, in two flat typed arrays: group g's members are
 * `data[start[g]] … data[start[g + 1] - 1]`, in the order they were added. One array per group (13k posting
 * lists, 6k trigram lists) held several megabytes more for the same numbers.
 */
export interface Groups {
  start: Uint32Array;
  data: Uint32Array;
}

/** Groups `members[i]` under `groups[i]` (a counting sort: stable, so each group keeps the order added). */
export function groupPairs(
  groupCount: number,
  groups: readonly number[],
  members: readonly number[],
): Groups {
  const start = new Uint32Array(groupCount + 1);
  for (const g of groups) start[g + 1] = (start[g + 1] as number) + 1;
  for (let g = 0; g < groupCount; g++) start[g + 1] = (start[g + 1] as number) + (start[g] as number);
  const next = start.slice(0, groupCount);
  const data = new Uint32Array(members.length);
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i] as number;
    data[next[g] as number] = members[i] as number;
    next[g] = (next[g] as number) + 1;
  }
  return { start, data };
}

/** A key's number in `slots`, added when new. */
export function slotOf(slots: Map<string, number>, key: string): number {
  let slot = slots.get(key);
  if (slot === undefined) {
    slot = slots.size;
    slots.set(key, slot);
  }
  return slot;
}
