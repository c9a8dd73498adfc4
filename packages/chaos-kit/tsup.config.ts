import { libraryConfig } from "../../tsup.shared.js";

// Two entry points: the test side (spawn, kill, count) and the worker side (`./agent`, loaded by
// the stores' fixture scripts, which are plain Node and cannot load TypeScript). ESM only: the
// kit is private, and both sides are ES modules.
export default libraryConfig({ entry: ["src/index.ts", "src/agent.ts"], format: ["esm"] });
