import { readFileSync } from "node:fs";
import { libraryConfig } from "../../tsup.shared.js";

// The version in the `user-agent` header (src/version.ts) is this package.json's.
const { version } = JSON.parse(readFileSync(new URL("package.json", import.meta.url), "utf8"));

export default libraryConfig({ define: { __PACKAGE_VERSION__: JSON.stringify(version) } });
