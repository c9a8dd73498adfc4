import { readFileSync } from "node:fs";
import { defineConfig, mergeConfig } from "vitest/config";
import shared from "../../vitest.shared.js";

// The version in the `user-agent` header (src/version.ts), as the build defines it.
const { version } = JSON.parse(readFileSync(new URL("package.json", import.meta.url), "utf8"));

export default mergeConfig(
  shared,
  defineConfig({ define: { __PACKAGE_VERSION__: JSON.stringify(version) } }),
);
