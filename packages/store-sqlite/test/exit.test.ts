import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { driverNameFor } from "../src/driver-select.js";
import { tempDir } from "../src/test-fixtures.js";
import { startFixture } from "./processes.js";

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

// better-sqlite3 12 aborted (SIGABRT, `Assertion failed: (env) != nullptr`) when one of its
// statements was garbage-collected on Node >= 24.19 (mid-run, or at the latest at exit). A process
// using the store on the running Node (the current 24 in CI) must end with code 0, however it ends.
describe("a process using the store exits cleanly", () => {
  for (const how of ["close", "open", "exit"] as const) {
    it(`when it ${how === "close" ? "closes the store" : how === "open" ? "leaves the store open" : "calls process.exit with the store open"}`, async () => {
      const fixture = startFixture("use-and-exit.mjs", [tmp.file(), how]);
      const seen = await fixture.line<{ driver: string; nativeLoaded: boolean; node: string }>();
      expect(seen.node).toBe(process.version);
      expect(seen.driver).toBe(driverNameFor(process.version));
      // On Node 24 and later better-sqlite3's native module is not even loaded.
      expect(seen.nativeLoaded).toBe(seen.driver === "better-sqlite3");
      expect(await fixture.exited).toBe(0);
      expect(fixture.stderr()).toBe("");
    }, 60_000);
  }
});
