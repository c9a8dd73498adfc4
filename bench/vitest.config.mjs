import { defineConfig } from "vitest/config";

// Only the bench's arithmetic and the events bench's store views are tested (cheap, in memory);
// the benches themselves are run by hand (`pnpm bench`, `pnpm bench:events`), never by `pnpm test`.
export default defineConfig({
  test: { include: ["test/**/*.test.mjs"] },
});
