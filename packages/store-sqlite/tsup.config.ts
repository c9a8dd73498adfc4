import { libraryConfig } from "../../tsup.shared.js";

// better-sqlite3 is a native module, loaded from the user's node_modules (and only on Node < 24),
// never bundled. `shims` gives the CommonJS build the import.meta.url it is required from.
export default libraryConfig({ external: ["better-sqlite3"], shims: true });
