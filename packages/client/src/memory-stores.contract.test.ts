import type { RunStore } from "@toolnexus/core";
import { runStoreContract } from "@toolnexus/core/testing";
import { memoryRunStore } from "./memory-stores.js";

runStoreContract("memoryRunStore", () => ({ store: memoryRunStore() }));

const later = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * The memory store behind promises resolved on a later tick, the way a network database
 * answers: proves the contract suite awaits every call and holds for asynchronous stores.
 * Arguments are copied before the first await, as the RunStore contract asks.
 */
function asyncStore(inner: Required<RunStore>): RunStore {
  const wrap =
    <A extends unknown[], R>(method: (...args: A) => R) =>
    async (...args: A): Promise<Awaited<R>> => {
      const copied = structuredClone(args);
      await later();
      const result = await method(...copied);
      await later();
      return result;
    };
  return {
    halt: wrap(inner.halt.bind(inner)),
    start: wrap(inner.start.bind(inner)),
    step: wrap(inner.step.bind(inner)),
    journal: wrap(inner.journal.bind(inner)),
    renew: wrap(inner.renew.bind(inner)),
    release: wrap(inner.release.bind(inner)),
    finish: wrap(inner.finish.bind(inner)),
    claim: wrap(inner.claim.bind(inner)),
    answer: wrap(inner.answer.bind(inner)),
    getRun: wrap(inner.getRun.bind(inner)),
    getRequest: wrap(inner.getRequest.bind(inner)),
    list: wrap(inner.list.bind(inner)),
    prune: wrap(inner.prune.bind(inner)),
    subscribe: inner.subscribe.bind(inner),
    appendEvents: wrap(inner.appendEvents.bind(inner)),
    readEvents: wrap(inner.readEvents.bind(inner)),
    watchEvents: inner.watchEvents.bind(inner),
    cancel: wrap(inner.cancel.bind(inner)),
    listRuns: wrap(inner.listRuns.bind(inner)),
    retry: wrap(inner.retry.bind(inner)),
    readJournal: wrap(inner.readJournal.bind(inner)),
    claimDue: wrap(inner.claimDue.bind(inner)),
  };
}

runStoreContract("memoryRunStore behind promises", () => ({ store: asyncStore(memoryRunStore()) }));
