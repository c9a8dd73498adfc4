// `--provider openai|anthropic` with `--base-url` and `--model`: the same tools and the same
// story through the real adapters, against loopback stand-ins for the two wire formats.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeProvider, fakeProvider } from "./fake-providers.js";
import { runDemo, tempDir } from "./processes.js";

let tmp: ReturnType<typeof tempDir>;
let fake: FakeProvider | undefined;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  tmp.cleanup();
});

function toolNames(body: Record<string, unknown>): string[] {
  return (body.tools as Record<string, unknown>[]).map((tool) =>
    String((tool.function as { name?: string } | undefined)?.name ?? tool.name),
  );
}

describe("a real endpoint instead of the scripted model", () => {
  it("--provider openai --base-url --model: the whole story through the OpenAI adapter", async () => {
    fake = await fakeProvider("openai");
    const { code, stdout, stderr } = await runDemo(
      [
        "--provider",
        "openai",
        "--base-url",
        fake.baseUrl,
        "--model",
        "fake-model",
        "--defaults",
        "--approve",
        "yes",
      ],
      { env: { OPENAI_API_KEY: "" } },
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(`model    openai:fake-model at ${fake.baseUrl}`);
    expect(stdout).toContain("✗ fetch_status[billing] timed out after 1000ms");
    expect(stdout).toContain("✓ deploy[2.4.1] deployed 2.4.1 to staging");
    expect(stdout).toContain("✓ rollback[staging] rolled staging back to 2.4.0");
    // Six calls of 120 tokens: the assistant's four turns and the changelog writer's two, whose
    // usage counts toward the assistant's run.
    expect(stdout).toMatch(/✓ done .*, 720 tokens/);
    // The endpoint got the tools (the sub-agent is one of them), their schemas and the system prompt.
    expect(fake.requests).toHaveLength(6);
    const first = fake.requests[0]!;
    expect(first.model).toBe("fake-model");
    expect(toolNames(first)).toEqual([
      "whoami",
      "fetch_status",
      "deploy",
      "rollback",
      "write_release_notes",
    ]);
    expect(JSON.stringify(first.messages)).toContain("You are a release assistant");
    // The changelog writer talks to the same endpoint with its own instructions and tools.
    const writer = fake.requests.filter((r) =>
      JSON.stringify(r.messages).includes("You are the changelog writer"),
    );
    expect(writer).toHaveLength(2);
    expect(toolNames(writer[0]!)).toEqual(["list_changes", "publish_notes"]);
    expect(stdout).toContain("┊ changelog-writer ✓ list_changes[2.4.1] 3 changes in 2.4.1");
  });

  it("environment variables choose anthropic; a durable halt prints a resume command with the same model", async () => {
    fake = await fakeProvider("anthropic");
    const db = tmp.file("demo.db");
    const env = {
      TOOLNEXUS_DEMO_PROVIDER: "anthropic",
      TOOLNEXUS_DEMO_BASE_URL: fake.baseUrl,
      TOOLNEXUS_DEMO_MODEL: "fake-model",
      ANTHROPIC_API_KEY: "",
    };
    const halted = await runDemo(["--durable", "--db", db], { env });
    expect(halted.code, halted.stderr).toBe(0);
    expect(halted.stdout).toContain("model    anthropic:fake-model");
    // The printed command names the model even though it came from the environment.
    const id = new RegExp(
      `demo resume (pnd_\\w+) --answer env=staging --db \\S+ --provider anthropic --model fake-model --base-url ${fake.baseUrl}`,
    ).exec(halted.stdout)![1]!;

    // Resumed with flags this time: a new process, the same adapter and tools.
    const resumed = await runDemo(
      [
        "resume",
        id,
        "--answer",
        "env=production",
        "--db",
        db,
        "--provider",
        "anthropic",
        "--base-url",
        fake.baseUrl,
        "--model",
        "fake-model",
      ],
      { env: { ANTHROPIC_API_KEY: "" } },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("✓ deploy[2.4.1] deployed 2.4.1 to production");
    expect(resumed.stdout).toContain(
      `--approve yes --db ${db} --provider anthropic --model fake-model --base-url ${fake.baseUrl}`,
    );
    expect(toolNames(fake.requests[0]!)).toEqual([
      "whoami",
      "fetch_status",
      "deploy",
      "rollback",
      "write_release_notes",
    ]);
  });
});
