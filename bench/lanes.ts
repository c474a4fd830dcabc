// Work over many indexes with a bounded number in flight: as many lanes as allowed, each taking the
// next index when it is done. A burst of hundreds at once measures the burst, not the thing under test.

/** Runs `work` for 0..count-1, `inFlight` at a time; resolves with the results in index order. */
export async function inLanes<T>(
  count: number,
  inFlight: number,
  work: (i: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < count; i = next++) results[i] = await work(i);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, lane));
  return results;
}
