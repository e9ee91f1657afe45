/** Addresses derived from SERVICE_DOCKER_NETWORK_PREFIX (three octets, validated by the schema). */
export interface ProxyNetwork {
  prefix: string;
  /** the private /24 network, e.g. 172.30.0.0/24 */
  subnet: string;
  gateway: string;
  /** the /25 pool handed out to per-run containers */
  dynamicPool: string;
  /** the two proxy addresses */
  proxies: [string, string];
}

export function deriveProxyNetwork(prefix: string): ProxyNetwork {
  return {
    prefix,
    subnet: `${prefix}.0/24`,
    gateway: `${prefix}.1`,
    dynamicPool: `${prefix}.128/25`,
    proxies: [`${prefix}.250`, `${prefix}.251`],
  };
}
