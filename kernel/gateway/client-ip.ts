import type { IncomingMessage } from 'node:http';

/**
 * The caller's address: the socket's, or the first X-Forwarded-For hop when the socket is a
 * loopback peer (the web listener on this machine proxies with xfwd).
 */
export function clientIp(req: IncomingMessage): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  const forwarded = req.headers['x-forwarded-for'];
  if (typeof forwarded === 'string' && /^(127\.|::1$|::ffff:127\.)/.test(peer)) return forwarded.split(',')[0].trim() || peer;
  return peer;
}
