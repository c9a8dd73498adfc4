// Counts the statements each pool sends, by the store operation (or LangGraph call) running at
// the time. node-postgres sends one statement at a time on a connection and waits for its reply,
// so every statement (BEGIN and COMMIT included) is one round trip.

/** A tally: `track(pool)` counts that pool's statements under whatever `within(op, fn)` names. */
export function statementCounter() {
  const counts = new Map();
  let current = "other";
  const bump = (op, n = 1) => {
    const entry = counts.get(op) ?? { calls: 0, statements: 0 };
    entry.statements += n;
    counts.set(op, entry);
    return entry;
  };
  const wrap = (client) => {
    if (client.__counted) return;
    client.__counted = true;
    const query = client.query;
    client.query = function counted(...args) {
      bump(current);
      return query.apply(this, args);
    };
  };
  return {
    counts,
    track(pool) {
      pool.on("connect", wrap);
    },
    /** Runs `fn` with its statements counted under `op` (calls are serial in this bench). */
    async within(op, fn) {
      const outer = current;
      current = op;
      bump(op, 0).calls++;
      try {
        return await fn();
      } finally {
        current = outer;
      }
    },
    /** Wraps a store's methods so that their statements count under the method's name. */
    storeView(store) {
      const view = {};
      for (let o = store; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
        for (const key of Object.getOwnPropertyNames(o)) {
          const value = store[key];
          if (key === "constructor" || Object.hasOwn(view, key)) continue;
          view[key] =
            typeof value === "function"
              ? (...args) => this.within(key, () => value.apply(store, args))
              : value;
        }
      }
      return view;
    },
    reset() {
      counts.clear();
    },
    /** Statements per call of each operation. */
    perCall() {
      const out = {};
      for (const [op, { calls, statements }] of counts) {
        out[op] = { calls, statements, perCall: calls > 0 ? statements / calls : statements };
      }
      return out;
    },
  };
}
