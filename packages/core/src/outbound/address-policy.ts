// Which addresses a user-chosen URL may reach: public unicast only; private, loopback, link-local and metadata refused.
import ipaddr from "ipaddr.js";

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

/** Cloud metadata endpoints: refused even when private addresses are allowed for tests. */
const METADATA = new Set(["169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254"]);
export const METADATA_HOSTS = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
]);

const REASONS: Record<string, string> = {
  unspecified: "an unspecified address",
  broadcast: "a broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address",
  loopback: "a loopback address",
  carrierGradeNat: "a shared (carrier-grade NAT) address",
  private: "a private address",
  uniqueLocal: "a private (unique local) address",
  reserved: "a reserved address",
  deprecatedSiteLocal: "a site-local address",
  discard: "a discard-only address",
  rfc6145: "an IPv4-translated address",
  rfc6052: "an IPv4-embedding (NAT64) address",
  "6to4": "a 6to4 address",
  teredo: "a Teredo address",
  benchmarking: "a benchmarking address",
  amt: "a reserved (AMT) address",
  as112: "a reserved (AS112) address",
  as112v6: "a reserved (AS112) address",
  deprecatedOrchid: "a reserved (ORCHID) address",
  orchid2: "a reserved (ORCHID) address",
  droneRemoteIdProtocolEntityTags: "a reserved address",
};

/**
 * The only IPv6 block IANA allocates for global unicast (RFC 4291 section 2.4, IANA's IPv6 address space registry).
 * ipaddr.js names the special-purpose ranges but calls everything else "unicast", so `::/8` (less the IPv4-compatible
 * block judged above), `100::/8`, `200::/7`, `4000::/2` and the rest reserved by the IETF would pass as public.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3") as [ipaddr.IPv6, number];

/** Ranges `allowPrivate` lets through (tests talk to local servers); metadata stays refused. */
const PRIVATE_RANGES = new Set(["loopback", "private", "uniqueLocal", "linkLocal", "carrierGradeNat"]);

/**
 * The IPv4 address an IPv6 address carries in one of the standard embeddings, with the embedding's name.
 * Traffic to these reaches (or is translated to) that IPv4 host, so it is what the policy must judge.
 * IPv4-mapped `::ffff:0:0/96` never gets here: `ipaddr.process` already turned it into IPv4.
 */
function embeddedIpv4(addr: ipaddr.IPv6): { v4: ipaddr.IPv4; form: string } | null {
  const b = addr.toByteArray();
  const v4 = (i: number, j: number, k: number, l: number) => new ipaddr.IPv4([b[i]!, b[j]!, b[k]!, b[l]!]);
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  switch (addr.range()) {
    case "rfc6052":
      // 64:ff9b::/96 (well-known NAT64 prefix) carries it in the last 32 bits; 64:ff9b:1::/48 (RFC 8215,
      // local-use) in bits 48-63 and 72-87 around the reserved octet 8 (RFC 6052 section 2.2)
      return zero(4, 12) ? { v4: v4(12, 13, 14, 15), form: "a NAT64 address" } : { v4: v4(6, 7, 9, 10), form: "a local-use NAT64 address" };
    case "rfc6145":
      return { v4: v4(12, 13, 14, 15), form: "an IPv4-translated address" };
    case "6to4":
      return { v4: v4(2, 3, 4, 5), form: "a 6to4 address" };
    case "unspecified":
    case "loopback":
      return null;
    default:
      // the rest of ::/96 (:: and ::1 aside): the deprecated IPv4-compatible form (RFC 4291 section 2.5.5.1)
      return zero(0, 12) ? { v4: v4(12, 13, 14, 15), form: "an IPv4-compatible address" } : null;
  }
}

export function checkAddress(ip: string, options: { allowPrivate?: boolean } = {}): AddressVerdict {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns IPv4-mapped IPv6 (::ffff:127.0.0.1) into the IPv4 address it carries.
    addr = ipaddr.process(ip);
  } catch {
    return { allowed: false, reason: `${ip} is not an IP address` };
  }
  const normal = addr.toString();
  if (METADATA.has(normal)) return { allowed: false, reason: `${normal} is a cloud metadata address` };
  if (addr.kind() === "ipv6") {
    const inner = embeddedIpv4(addr as ipaddr.IPv6);
    if (inner) {
      const verdict = checkAddress(inner.v4.toString(), options);
      return verdict.allowed ? verdict : { allowed: false, reason: `${normal} is ${inner.form} embedding ${verdict.reason}` };
    }
  }
  let range = addr.range();
  if (range === "unicast" && addr.kind() === "ipv6" && !(addr as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) range = "reserved";
  if (range === "unicast") return { allowed: true };
  if (options.allowPrivate && PRIVATE_RANGES.has(range)) return { allowed: true };
  return { allowed: false, reason: `${normal} is ${REASONS[range] ?? `a special-purpose address (${range})`}` };
}

export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ""));
}
