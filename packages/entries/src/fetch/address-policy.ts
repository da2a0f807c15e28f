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

/** Ranges `allowPrivate` lets through (tests talk to local servers); metadata stays refused. */
const PRIVATE_RANGES = new Set(["loopback", "private", "uniqueLocal", "linkLocal", "carrierGradeNat"]);

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
  const range = addr.range();
  if (range === "unicast") return { allowed: true };
  if (options.allowPrivate && PRIVATE_RANGES.has(range)) return { allowed: true };
  return { allowed: false, reason: `${normal} is ${REASONS[range] ?? `a special-purpose address (${range})`}` };
}

export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ""));
}
