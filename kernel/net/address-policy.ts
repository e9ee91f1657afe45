import { BlockList, isIP } from 'node:net';

/** Address ranges the http node refuses unless the operator allow-lists them. */
const BLOCKED_V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const BLOCKED_V6: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fe80::', 10, 'link-local'],
  ['fc00::', 7, 'unique-local'],
  ['ff00::', 8, 'multicast'],
  ['64:ff9b::', 96, 'NAT64'],
  ['2001:db8::', 32, 'documentation'],
];

function rangeList(ranges: [string, number, string][], family: 'ipv4' | 'ipv6'): { list: BlockList; label: string }[] {
  return ranges.map(([net, prefix, label]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, family);
    return { list, label };
  });
}

const V4 = rangeList(BLOCKED_V4, 'ipv4');
const V6 = rangeList(BLOCKED_V6, 'ipv6');

/** `::ffff:10.0.0.1` is 10.0.0.1: an IPv4-mapped IPv6 address is judged as the IPv4 address it carries. */
function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1] : address;
}

/**
 * Which targets the http node may connect to. Loopback, link-local (169.254.169.254 included),
 * private, unique-local and other special ranges are refused unless the operator's allow-list
 * (WORKFLOW_HTTP_ALLOW: host names and CIDRs or single addresses) opens them.
 */
export class AddressPolicy {
  private readonly allowedHosts = new Set<string>();
  private readonly allowedAddresses = new BlockList();

  constructor(allow: readonly string[]) {
    for (const raw of allow.map((a) => a.trim()).filter(Boolean)) {
      const [net, prefix] = raw.split('/');
      const family = isIP(net);
      if (family === 0) {
        this.allowedHosts.add(raw.toLowerCase().replace(/\.$/, ''));
        continue;
      }
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (prefix === undefined) this.allowedAddresses.addAddress(net, type);
      else this.allowedAddresses.addSubnet(net, Number(prefix), type);
    }
  }

  /** A host name the operator allowed by name: its addresses are not checked. */
  hostAllowed(hostname: string): boolean {
    return this.allowedHosts.has(hostname.toLowerCase().replace(/\.$/, ''));
  }

  /** Why the address is refused, or undefined when the node may connect to it. */
  refusal(rawAddress: string): string | undefined {
    const address = unmapped(rawAddress.replace(/^\[|\]$/g, '').split('%')[0]);
    const family = isIP(address);
    if (family === 0) return `'${rawAddress}' is not an IP address`;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (this.allowedAddresses.check(address, type)) return undefined;
    const hit = (family === 4 ? V4 : V6).find((r) => r.list.check(address, type));
    return hit ? `${address} is a ${hit.label} address` : undefined;
  }
}
