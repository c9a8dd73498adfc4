// Restate's engine for this harness lives with its package (it needs the Restate SDK and server
// from packages/restate's dependencies); build @toolnexus/restate first.
export { restateEngine } from "../../packages/restate/bench.mjs";
