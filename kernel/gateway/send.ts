import type { ServerResponse } from 'node:http';
import { toProblem } from '../errors/problem.ts';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(payload), ...headers });
  res.end(payload);
}

/** Writes any error as RFC 9457 problem details and returns the status written. */
export function sendProblem(res: ServerResponse, err: unknown, requestId?: string): number {
  const problem = toProblem(err, requestId);
  if (res.headersSent) {
    res.destroy();
    return problem.status;
  }
  const payload = JSON.stringify(problem.body);
  res.writeHead(problem.status, { ...problem.headers, 'Content-Length': Buffer.byteLength(payload), ...(requestId ? { 'X-Request-Id': requestId } : {}) });
  res.end(payload);
  return problem.status;
}
