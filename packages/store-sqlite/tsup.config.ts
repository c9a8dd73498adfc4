import { libraryConfig } from "../../tsup.shared.js";

// A native module: loaded from the user's node_modules, never bundled.
export default libraryConfig({ external: ["better-sqlite3"] });
