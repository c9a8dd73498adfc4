import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  // A native module: loaded from the user's node_modules, never bundled.
  external: ["better-sqlite3"],
});
