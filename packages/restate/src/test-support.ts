// Tests' Restate: the real restate-server binary in a temp dir on free ports, and a service
// endpoint (HTTP/2 on 127.0.0.1) registered with it. Not part of the package's API.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http2 from "node:http2";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { endpoint } from "@restatedev/restate-sdk";
import { guard } from "@toolnexus/chaos-kit";

export const SERVER_BIN = join(import.meta.dirname, "..", "node_modules", ".bin", "restate-server");

/** A port nobody listens on now, from the kernel. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  tries = 600,
): Promise<T> {
  let last: unknown;
  for (let i = 0; i < tries; i++) {
    try {
      const got = await probe();
      if (got !== undefined) return got;
    } catch (thrown) {
      last = thrown;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not happen: ${String(last)}`);
}

export interface RestateServer {
  ingress: string;
  admin: string;
  dir: string;
  /** Registers (or re-registers) the deployment at `uri` with the server. */
  register(uri: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts restate-server with its data in a temp dir. Retries are quick (a killed service comes
 * back within a second in the chaos test), and invocations that keep failing are not paused.
 */
export async function startRestate(): Promise<RestateServer> {
  const dir = mkdtempSync(join(tmpdir(), "toolnexus-restate-"));
  const [node, admin, ingress] = [await freePort(), await freePort(), await freePort()];
  writeFileSync(
    join(dir, "config.toml"),
    [
      'cluster-name = "toolnexus-test"',
      "default-num-partitions = 4",
      `bind-address = "127.0.0.1:${node}"`,
      `advertised-address = "http://127.0.0.1:${node}/"`,
      "[default-retry-policy]",
      'initial-interval = "50ms"',
      "exponentiation-factor = 2.0",
      'max-interval = "500ms"',
      'on-max-attempts = "kill"',
      "max-attempts = 10000",
      "[worker.invoker]",
      'inactivity-timeout = "10s"',
      "[admin]",
      `bind-address = "127.0.0.1:${admin}"`,
      "disable-web-ui = true",
      "[ingress]",
      `bind-address = "127.0.0.1:${ingress}"`,
    ].join("\n"),
  );
  const child: ChildProcess = spawn(
    SERVER_BIN,
    [
      "--config-file",
      join(dir, "config.toml"),
      "--base-dir",
      join(dir, "data"),
      "--listen-mode",
      "tcp",
      "--no-logo",
    ],
    { stdio: ["ignore", "ignore", "pipe"], detached: true },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const release = guard({ group: child.pid!, remove: dir });
  const adminUrl = `http://127.0.0.1:${admin}`;
  const ingressUrl = `http://127.0.0.1:${ingress}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // Already gone.
      }
      await exited;
    }
    release();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until("restate-server health", async () => {
      if (child.exitCode !== null) throw new Error(`restate-server exited: ${stderr}`);
      const admin = await fetch(`${adminUrl}/health`);
      const ingress = await fetch(`${ingressUrl}/restate/health`);
      return admin.ok && ingress.ok ? true : undefined;
    });
  } catch (thrown) {
    await stop();
    throw thrown;
  }
  return {
    ingress: ingressUrl,
    admin: adminUrl,
    dir,
    async register(uri) {
      await until("deployment registration", async () => {
        const response = await fetch(`${adminUrl}/deployments`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ uri, force: true }),
        });
        if (response.ok) return true;
        throw new Error(`${response.status} ${await response.text()}`);
      });
    },
    stop,
  };
}

/** Serves `services` over HTTP/2 on 127.0.0.1 (a free port); `close` stops it. */
export async function serveServices(
  services: Parameters<ReturnType<typeof endpoint>["bind"]>[0][],
): Promise<{ uri: string; close(): Promise<void> }> {
  let bound = endpoint();
  for (const service of services) bound = bound.bind(service);
  const server = http2.createServer(bound.http2Handler());
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    uri: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Polls the ingress until `probe` gives a value: a condition, never a fixed wait. */
export { until };
