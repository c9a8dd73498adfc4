import { isolatedFiles } from "../../vitest.shared.js";

// wire-data-shapes.test.ts checks V8's optimized code across full GCs: it needs a process no
// other test file has run in.
export default isolatedFiles(["src/wire-data-shapes.test.ts"]);
