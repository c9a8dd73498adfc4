// Server processes for the tests: started with tsx, their URL read from their first line,
// stopped by closing their stdin (and killed if that does not end them).
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

export interface ServerProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export const FIXTURES = join(import.meta.dirname, "fixtures");

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

/** Starts `fixtures/<script>` with `env` and waits for the URL it prints. */
export async function startServer(
  script: string,
  env: Record<string, string>,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", join(FIXTURES, script)], {
    cwd: join(import.meta.dirname, ".."),
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const stop = async () => {
    child.stdin?.end();
    const done = exited(child);
    const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await done;
    clearTimeout(kill);
  };
  try {
    const line = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout! });
      lines.once("line", resolve);
      child.once("exit", (code) =>
        reject(new Error(`the server exited (${code}) before it listened`)),
      );
    });
    const { url, pid } = JSON.parse(line) as { url: string; pid: number };
    return { url, pid, stop };
  } catch (thrown) {
    await stop();
    throw thrown;
  }
}
