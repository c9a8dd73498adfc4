// A turn's calls run at the same time, but never more than the run's `maxConcurrentTools`:
// a model (or a prompt injection) asking for thousands of calls must not start thousands of
// HTTP requests or processes at once.

/**
 * `work(i)` for every i below `count`, at most `limit` in flight, results in index order.
 * When everything fits under the limit it is a plain Promise.all: the common turn pays nothing.
 */
export function settleAll<T>(
  count: number,
  limit: number,
  work: (index: number) => T | Promise<T>,
): Promise<T[]> {
  if (count <= limit) {
    const all: (T | Promise<T>)[] = new Array(count);
    for (let i = 0; i < count; i++) all[i] = work(i);
    return Promise.all(all);
  }
  return pooled(count, limit, work);
}

async function pooled<T>(
  count: number,
  limit: number,
  work: (index: number) => T | Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  let failed = false;
  // Each lane takes the next index when its call ends; the first rejection stops the lanes
  // (the run is stopping: cancelled or its lease lost) and is what the turn rejects with.
  const lane = async () => {
    while (!failed && next < count) {
      const index = next++;
      try {
        results[index] = await work(index);
      } catch (thrown) {
        failed = true;
        throw thrown;
      }
    }
  };
  const lanes: Promise<void>[] = [];
  for (let i = 0; i < limit; i++) lanes.push(lane());
  await Promise.all(lanes);
  return results;
}
