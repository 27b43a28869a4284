// A cursor listing's rows: a row read again on its own and put takes the place of its listed version instead
// of being added after the rest, and the rows shown are one per id, in the place first shown, as last read.
import { latestOnce, putRow } from '../src/cursor-rows';

/** A listed row and which reading of it this is. */
interface Row {
  clave: string;
  read: number;
}

const idOf = (r: Row) => r.clave;
const row = (clave: string, read = 1): Row => ({ clave, read });

describe('putRow', () => {
  it('when a row whose id is already there is put, then it takes that row’s place and nothing is added', () => {
    const more = [row('a'), row('b'), row('c')];

    const put = putRow(more, row('b', 2), idOf);

    expect(put).toEqual([row('a'), row('b', 2), row('c')]);
    expect(more).toEqual([row('a'), row('b'), row('c')]);
  });

  it('when the same row is put twice, then it is there once, as put last', () => {
    const once = putRow([row('a')], row('b', 2), idOf);

    const twice = putRow(once, row('b', 3), idOf);

    expect(twice).toEqual([row('a'), row('b', 3)]);
  });

  it('when a row with a new id is put, then it is added after the rest', () => {
    expect(putRow([row('a')], row('b'), idOf)).toEqual([row('a'), row('b')]);
  });

  it('when "load more" brought the row again after it was put, and it is put once more, then the rows shown are the last put, in the place first shown', () => {
    const first = [row('a'), row('b')];
    // b was answered and put; the next page listed it again among the answered ones.
    const more = [row('b', 2), row('c'), row('b', 3)];

    const put = putRow(more, row('b', 4), idOf);

    expect(put).toEqual([row('b', 2), row('c'), row('b', 4)]);
    expect(latestOnce([...first, ...put], idOf)).toEqual([row('a'), row('b', 4), row('c')]);
  });
});
