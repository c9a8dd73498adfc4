import { isolatedFiles } from "../../vitest.shared.js";

// shapes.test.ts checks V8's optimized code across full GCs and that the keepers are made at
// the first durable run: both need a process no other test file has run in.
export default isolatedFiles(["src/shapes.test.ts"]);
