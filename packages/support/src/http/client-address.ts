// Which client a request comes from, for the limits that key on it: the connection's peer address, or behind the
// host's own proxies the entry they wrote in a configured header. A client picks its customer id, not its address.

export interface ClientAddressOptions {
  /**
   * A header the host's own proxy sets to the client's address (`x-forwarded-for`, `x-real-ip`, `cf-connecting-ip`,
   * `forwarded`). Unset (the default): headers are never read and the connection's peer address is the client's,
   * since any client can send any header.
   */
  clientAddressHeader?: string;
  /**
   * How many proxies of the host's own append to that header (Express's numeric `trust proxy`): the client is the
   * entry this many places from the right; entries further left were written by the client. Default 1.
   */
  trustedProxies?: number;
}

export interface AddressSource {
  remoteAddress?: string;
  headers: Readonly<Record<string, string | undefined>>;
}

/** The limit key of the client that sent a request, or undefined when the runtime knows no address. */
export function clientAddressOf(options: ClientAddressOptions): (request: AddressSource) => string | undefined {
  const header = options.clientAddressHeader?.trim().toLowerCase() || undefined;
  const hops = Math.max(1, Math.floor(options.trustedProxies ?? 1));
  return (request) => {
    const peer = request.remoteAddress === undefined ? undefined : addressKey(request.remoteAddress);
    if (header === undefined) return peer;
    const value = request.headers[header];
    if (!value) return peer;
    const entries = header === "forwarded" ? forwardedFor(value) : value.split(",");
    // fewer entries than proxies: the request skipped some of them, so the leftmost is the nearest to the client
    const picked = entries[Math.max(0, entries.length - hops)];
    return (picked === undefined ? undefined : addressKey(picked)) ?? peer;
  };
}

/** The `for=` of each element of an RFC 7239 `Forwarded` header, in order. */
function forwardedFor(value: string): string[] {
  return value.split(",").map((element) => {
    for (const pair of element.split(";")) {
      const eq = pair.indexOf("=");
      if (eq > 0 && pair.slice(0, eq).trim().toLowerCase() === "for") return pair.slice(eq + 1);
    }
    return "";
  });
}

const OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
const GROUP = /^[0-9a-f]{1,4}$/;

/**
 * One key per client: an IPv4 address as it is (a mapped one, `::ffff:a.b.c.d`, too), an IPv6 address by its /64,
 * the block a single subscriber or machine is given and can rotate through freely. Undefined when it is no address
 * (`unknown`, an obfuscated `_node` of `Forwarded`). Accepts a header's forms: quotes, `[v6]:port`, `v4:port`, a zone.
 */
export function addressKey(raw: string): string | undefined {
  let a = raw.trim();
  if (a.length > 100) return undefined;
  if (a.startsWith('"') && a.endsWith('"') && a.length >= 2) a = a.slice(1, -1);
  if (a.startsWith("[")) {
    const end = a.indexOf("]");
    if (end < 0) return undefined;
    a = a.slice(1, end);
  } else if (a.includes(".") && a.indexOf(":") !== -1 && a.indexOf(":") === a.lastIndexOf(":")) a = a.slice(0, a.indexOf(":"));
  const zone = a.indexOf("%");
  if (zone >= 0) a = a.slice(0, zone);
  if (IPV4.test(a)) return a;
  const groups = ipv6Groups(a.toLowerCase());
  if (!groups) return undefined;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join(".");
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address in text form (`::` and a trailing dotted IPv4 included), else undefined. */
function ipv6Groups(a: string): number[] | undefined {
  if (!a.includes(":")) return undefined;
  let text = a;
  if (text.includes(".")) {
    const cut = text.lastIndexOf(":");
    const v4 = text.slice(cut + 1);
    if (!IPV4.test(v4)) return undefined;
    const [b0, b1, b2, b3] = v4.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, cut + 1)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const part = (s: string) => (s === "" ? [] : s.split(":"));
  const head = part(halves[0]!);
  const tail = halves.length === 2 ? part(halves[1]!) : [];
  const written = [...head, ...tail];
  if (!written.every((g) => GROUP.test(g))) return undefined;
  if (halves.length === 2 ? written.length > 7 : written.length !== 8) return undefined;
  const zeros = Array.from({ length: 8 - written.length }, () => "0");
  return [...head, ...zeros, ...tail].map((g) => Number.parseInt(g, 16));
}
