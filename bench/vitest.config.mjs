import { defineConfig } from "vitest/config";

// Only the bench's arithmetic is tested (cheap, no library loaded); the bench itself is run by
// hand with `pnpm bench`, never by `pnpm test`.
export default defineConfig({
  test: { include: ["test/**/*.test.mjs"] },
});
