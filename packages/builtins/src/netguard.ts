// Which addresses webfetch refuses by default: the machine itself, private networks, link-local
// addresses (cloud metadata at 169.254.169.254 and fd00:ec2::254), CGNAT, multicast and
// reserved ranges, in IPv4 and IPv6, including IPv4 addresses wrapped in IPv6 (::ffff:127.0.0.1,
// NAT64, 6to4). The check runs on the address actually connected to (a custom DNS lookup), so a
// name that resolves to a private address, or re-resolves to one later (DNS rebinding), is
// refused too.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { isIP } from "node:net";

/** An address webfetch will not connect to, with the kind of address it is. */
export class BlockedAddressError extends Error {
  override name = "BlockedAddressError";
  constructor(
    readonly host: string,
    readonly address: string,
    readonly kind: string,
  ) {
    super(
      host === address
        ? `${address} is a ${kind} address`
        : `${host} resolves to ${address}, a ${kind} address`,
    );
  }
}

type Range = [base: number, bits: number, kind: string];

const ip4 = (text: string): number =>
  text.split(".").reduce((value, part) => value * 256 + Number(part), 0);

const V4: Range[] = [
  [ip4("0.0.0.0"), 8, "this-network"],
  [ip4("10.0.0.0"), 8, "private"],
  [ip4("100.64.0.0"), 10, "carrier-grade NAT (shared)"],
  [ip4("127.0.0.0"), 8, "loopback"],
  [ip4("169.254.0.0"), 16, "link-local (cloud metadata)"],
  [ip4("172.16.0.0"), 12, "private"],
  [ip4("192.0.0.0"), 24, "IETF protocol assignment"],
  [ip4("192.168.0.0"), 16, "private"],
  [ip4("198.18.0.0"), 15, "benchmarking"],
  [ip4("224.0.0.0"), 4, "multicast"],
  [ip4("240.0.0.0"), 4, "reserved"],
];

/** The kind of a blocked IPv4 address (dotted quad), or undefined when it is public. */
function blockedV4(value: number): string | undefined {
  for (const [base, bits, kind] of V4) {
    const size = 2 ** (32 - bits);
    if (value >= base && value < base + size) return kind;
  }
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (with `::` and a trailing dotted quad). */
function groups6(text: string): number[] | undefined {
  let address = text.replace(/%.*$/, ""); // zone id: fe80::1%eth0
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted?.[1] !== undefined) {
    const v4 = ip4(dotted[1]);
    address = `${address.slice(0, dotted.index)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = "", tail] = address.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const missing = 8 - front.length - back.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  const all = [...front, ...new Array<number>(missing).fill(0), ...back];
  return all.some((g) => Number.isNaN(g)) ? undefined : all;
}

function blockedV6(text: string): string | undefined {
  const g = groups6(text);
  if (g === undefined) return "unparsable IPv6";
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const v4 = (hi: number, lo: number) => hi * 65536 + lo;
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(8)) return "unspecified";
  if (zeroTo(7) && g7 === 1) return "loopback";
  // IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::a.b.c.d: the IPv4 rules.
  if (zeroTo(5) && g5 === 0xffff) return blockedV4(v4(g6, g7));
  if (zeroTo(6)) return blockedV4(v4(g6, g7)) ?? "IPv4-compatible";
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return blockedV4(v4(g6, g7));
  }
  if (g0 === 0x2002) return blockedV4(v4(g1, g2)); // 6to4 embeds an IPv4 address
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local (private)";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  if ((g0 & 0xffc0) === 0xfec0) return "site-local (private)";
  if ((g0 & 0xff00) === 0xff00) return "multicast";
  return undefined;
}

/**
 * The kind of address `address` is when webfetch refuses it by default ("loopback", "private",
 * "link-local (cloud metadata)"…), or undefined for a public address. `address` is an IP
 * literal (IPv6 without brackets).
 */
export function blockedAddressKind(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return blockedV4(ip4(address));
  if (family === 6) return blockedV6(address);
  return "not an IP";
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http(s).request that resolves `hostname` and refuses it when any of its
 * addresses is blocked (so the connection cannot pick a private one).
 */
export function guardedLookup(
  hostname: string,
  options: LookupOptions,
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    for (const { address } of addresses) {
      const kind = blockedAddressKind(address);
      if (kind !== undefined) {
        return callback(new BlockedAddressError(hostname, address, kind), []);
      }
    }
    const first = addresses[0];
    if (options.all === true || first === undefined) return callback(null, addresses);
    callback(null, first.address, first.family);
  });
}

/** A host as compared with `allowHosts`: lower case, no brackets, IP literals normalized. */
export function normalHost(host: string): string {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  try {
    const parsed = new URL(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}/`).hostname;
    return parsed.replace(/^\[(.*)\]$/, "$1");
  } catch {
    return bare;
  }
}
