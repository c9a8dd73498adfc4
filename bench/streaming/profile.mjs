// A profile of one contender alone: `node --cpu-prof streaming/profile.mjs [text|tool] [n]`
// reads the stream n times (default 200) with @toolnexus/openai, then prints the top self-time
// functions of the profile it finds in --cpu-prof-dir (or the working directory).
import { spawn } from "node:child_process";
import { openai } from "@toolnexus/openai";

const kind = process.argv[2] ?? "text";
const n = Number(process.argv[3] ?? 200);
const server = spawn(process.execPath, [new URL("./server.mjs", import.meta.url).pathname], {
  stdio: ["pipe", "pipe", "inherit"],
});
const port = await new Promise((resolve) => {
  server.stdout.once("data", (data) => resolve(Number(String(data).trim())));
});
const model = openai({
  model: "gpt-4o-mini",
  baseUrl: `http://127.0.0.1:${port}/${kind}`,
  apiKey: "sk-bench",
});
const request = { messages: [{ role: "user", content: "Write the notes." }], tools: [] };
const before = process.cpuUsage();
for (let i = 0; i < n; i++) {
  if (process.env.PROFILE_GC) globalThis.gc?.();
  for await (const _part of model.stream(request)) {
  }
}
const used = process.cpuUsage(before);
process.stderr.write(
  `${kind}: ${((used.user + used.system) / 1000 / n).toFixed(2)} ms CPU per stream\n`,
);
server.stdin.end();
