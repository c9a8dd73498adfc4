import { libraryConfig } from "../../tsup.shared.js";

// The driver is loaded from the user's node_modules (they may share its pool), never bundled.
export default libraryConfig({ external: ["pg"] });
