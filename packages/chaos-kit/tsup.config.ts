import { libraryConfig } from "../../tsup.shared.js";

// Three entry points: the test side (spawn, kill, count), the worker side (`./agent`, loaded by
// the stores' fixture scripts, which are plain Node and cannot load TypeScript), and `./build`
// (the source build for those scripts, with the workspace's tsup). ESM only: the kit is private.
export default libraryConfig({
  entry: ["src/index.ts", "src/agent.ts", "src/build.ts"],
  format: ["esm"],
  external: ["tsup"],
});
