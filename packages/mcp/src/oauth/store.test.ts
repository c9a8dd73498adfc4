import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fileTokenStore, memoryTokenStore } from "./store.js";
import type { McpAuthRecord } from "./types.js";

const record: McpAuthRecord = {
  tokens: { access_token: "access-0123456789", token_type: "Bearer", expires_in: 60 },
  client: { client_id: "client-1" },
};

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "toolnexus-tokens-"));
  dirs.push(dir);
  return dir;
}

describe("memoryTokenStore", () => {
  it("keeps a copy per key and forgets on delete", async () => {
    const store = memoryTokenStore();
    await store.set("https://a.example/mcp", record);
    const read = (await store.get("https://a.example/mcp"))!;
    expect(read).toEqual(record);
    read.tokens!.access_token = "changed";
    expect((await store.get("https://a.example/mcp"))?.tokens?.access_token).toBe(
      "access-0123456789",
    );
    expect(await store.get("https://b.example/mcp")).toBeUndefined();
    await store.delete("https://a.example/mcp");
    expect(await store.get("https://a.example/mcp")).toBeUndefined();
  });
});

describe("fileTokenStore", () => {
  it("writes owner-only files that another store on the same directory reads", async () => {
    const dir = join(await tempDir(), "nested");
    await fileTokenStore(dir).set("https://a.example/mcp", record);
    expect(await fileTokenStore(dir).get("https://a.example/mcp")).toEqual(record);
    expect(await fileTokenStore(dir).get("https://b.example/mcp")).toBeUndefined();
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect((await stat(join(dir, files[0]!))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    await fileTokenStore(dir).delete("https://a.example/mcp");
    expect(await readdir(dir)).toEqual([]);
  });

  it("ignores a file that belongs to another key or is not JSON", async () => {
    const dir = await tempDir();
    const store = fileTokenStore(dir);
    await store.set("https://a.example/mcp", record);
    const [file] = await readdir(dir);
    const text = await readFile(join(dir, file!), "utf8");
    await writeFile(join(dir, file!), text.replace("https://a.example/mcp", "https://x.example/"));
    expect(await store.get("https://a.example/mcp")).toBeUndefined();
    await writeFile(join(dir, file!), "{not json");
    expect(await store.get("https://a.example/mcp")).toBeUndefined();
  });

  it("refuses a record over its size cap", async () => {
    const store = fileTokenStore(await tempDir());
    const huge: McpAuthRecord = {
      tokens: { access_token: "x".repeat(70_000), token_type: "Bearer" },
    };
    await expect(store.set("k", huge)).rejects.toThrow(RangeError);
  });
});
