// The Restate SDK 1.17 calls Promise.withResolvers (Node 22) when it handles an invocation. On
// Node 20 the adapter adds the standard one before it serves anything; Node 22 and later keep
// their own.

type Resolvers = {
  promise: Promise<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
};

/** Adds `Promise.withResolvers` where the platform lacks it (Node 20). */
export function ensureWithResolvers(): void {
  const promise = Promise as unknown as { withResolvers?: () => Resolvers };
  if (typeof promise.withResolvers === "function") return;
  promise.withResolvers = () => {
    let resolve!: (v: unknown) => void;
    let reject!: (e: unknown) => void;
    const made = new Promise((yes, no) => {
      resolve = yes;
      reject = no;
    });
    return { promise: made, resolve, reject };
  };
}
