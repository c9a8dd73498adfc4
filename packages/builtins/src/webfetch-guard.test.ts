// webfetch's refusal of private networks: every address class, the forms an address can be
// written in, names resolving to private addresses, and redirects, against a real server on
// 127.0.0.1 that records what reached it.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { blockedAddressKind } from "./netguard.js";
import { webfetchTool } from "./webfetch.js";

let server: Server;
let port: number;
let base: string;
const reached: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    reached.push(req.url ?? "");
    const redirects: Record<string, string> = {
      "/to-localhost": `http://localhost:${port}/secret`,
      "/to-metadata": "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
      "/to-mapped": `http://[::ffff:127.0.0.1]:${port}/secret`,
      "/to-decimal": `http://2130706433:${port}/secret`,
      "/to-ipv6-loopback": `http://[::1]:${port}/secret`,
      "/to-file": "file:///etc/passwd",
      "/to-self": "/secret",
    };
    const location = redirects[req.url ?? ""];
    if (location !== undefined) {
      res.writeHead(302, { location });
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("internal secret\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  reached.length = 0;
});

describe("blockedAddressKind", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["0.0.0.0", "this-network"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["100.64.0.1", "carrier-grade NAT (shared)"],
    ["100.127.255.255", "carrier-grade NAT (shared)"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "link-local (cloud metadata)"],
    ["::ffff:10.0.0.1", "private"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "link-local (cloud metadata)"],
    ["2002:7f00:1::", "loopback"],
    ["fc00::1", "unique-local (private)"],
    ["fd00:ec2::254", "unique-local (private)"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf:ffff::1", "link-local"],
    ["ff02::1", "multicast"],
  ])("refuses %s (%s)", (address, kind) => {
    expect(blockedAddressKind(address)).toBe(kind);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "100.128.0.1",
    "172.32.0.1",
    "169.255.0.1",
    "2606:4700:4700::1111",
    "2002:808:808::1",
    "::ffff:8.8.8.8",
  ])("lets the public address %s through", (address) => {
    expect(blockedAddressKind(address)).toBeUndefined();
  });
});

describe("webfetch refuses private networks by default", () => {
  it.each([
    ["127.0.0.1", () => `${base}/secret`],
    ["localhost (a name resolving to loopback)", () => `http://localhost:${port}/secret`],
    ["decimal 127.0.0.1", () => `http://2130706433:${port}/secret`],
    ["octal 127.0.0.1", () => `http://0177.0.0.1:${port}/secret`],
    ["hex and short 127.0.0.1", () => `http://0x7f.1:${port}/secret`],
    ["IPv4-mapped IPv6", () => `http://[::ffff:127.0.0.1]:${port}/secret`],
    ["IPv6 loopback", () => `http://[::1]:${port}/secret`],
    ["0.0.0.0", () => `http://0.0.0.0:${port}/secret`],
    ["the IPv6 unspecified address", () => `http://[::]:${port}/secret`],
    ["cloud metadata", () => "http://169.254.169.254/latest/meta-data/"],
    ["AWS IPv6 metadata", () => "http://[fd00:ec2::254]/latest/meta-data/"],
    ["private 10/8", () => "http://10.0.0.1/"],
    ["private 172.16/12", () => "http://172.16.5.4/"],
    ["private 192.168/16", () => "http://192.168.0.1/"],
    ["CGNAT 100.64/10", () => "http://100.64.1.1/"],
    ["unique-local fc00::/7", () => "http://[fc00::1]/"],
    ["link-local fe80::/10", () => "http://[fe80::1]/"],
  ])("%s", async (_, url) => {
    const result = await webfetchTool().execute({ url: url(), timeout: 10 });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^webfetch: refused .*address; webfetch does not reach private/);
    expect(result.metadata).toEqual({ refused: true });
    expect(reached).toEqual([]);
  });

  it("fetches a host named in allowHosts, in whatever form its URL writes it", async () => {
    const tool = webfetchTool({ allowHosts: ["127.0.0.1"] });
    expect((await tool.execute({ url: `${base}/secret` })).output).toBe("internal secret\n");
    expect((await tool.execute({ url: `http://2130706433:${port}/x` })).output).toBe(
      "internal secret\n",
    );
    expect(reached).toEqual(["/secret", "/x"]);
  });

  it("allowPrivateNetworks turns the refusal off", async () => {
    const tool = webfetchTool({ allowPrivateNetworks: true });
    expect((await tool.execute({ url: `${base}/secret` })).output).toBe("internal secret\n");
  });
});

describe("redirects are checked on every hop", () => {
  it.each([
    ["/to-localhost", /refused localhost:\d+: localhost resolves to .*a loopback address/],
    ["/to-metadata", /refused 169\.254\.169\.254: .*link-local \(cloud metadata\) address/],
    ["/to-mapped", /refused \[::ffff:7f00:1\]:\d+: .*loopback address/],
    ["/to-ipv6-loopback", /refused \[::1\]:\d+: ::1 is a loopback address/],
    ["/to-file", /refused file:\/\/\/etc\/passwd: only http and https URLs are allowed/],
  ])("the allowed first hop %s cannot redirect the fetch to a refused one", async (path, why) => {
    const tool = webfetchTool({ allowHosts: ["127.0.0.1"] });
    const result = await tool.execute({ url: `${base}${path}`, timeout: 10 });
    expect(result.output).toMatch(why);
    expect(result.metadata).toEqual({ refused: true });
    expect(reached).toEqual([path]);
  });

  it("a redirect to the allowed host itself is followed (in any form of its address)", async () => {
    const tool = webfetchTool({ allowHosts: ["127.0.0.1"] });
    expect((await tool.execute({ url: `${base}/to-self` })).output).toBe("internal secret\n");
    // http://2130706433 is 127.0.0.1 written as one decimal number.
    expect((await tool.execute({ url: `${base}/to-decimal` })).output).toBe("internal secret\n");
    expect(reached).toEqual(["/to-self", "/secret", "/to-decimal", "/secret"]);
  });
});
