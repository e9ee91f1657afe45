import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { ENV_SCHEMA, type EnvName, type VarSpec } from './schema.ts';
import { deriveProxyNetwork, type ProxyNetwork } from './network.ts';

type ValueOf<S> = S extends { type: 'int' } ? number : S extends { type: 'bool' } ? boolean : S extends { type: 'list' } ? string[] : string;

export type Env = { -readonly [K in EnvName]: ValueOf<(typeof ENV_SCHEMA)[K]> };

export interface Config {
  env: Env;
  network: ProxyNetwork;
  /** true when no DATABASE_URL, REDIS_URL or S3 is configured for that store */
  embedded: { database: boolean; redis: boolean; objects: boolean };
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Parses one raw value; returns the typed value or an error message. */
export function parseVar(name: string, spec: VarSpec, raw: string): { value: unknown } | { error: string } {
  // a secret's value never appears in the message (it ends up in logs)
  const bad = (why: string) => ({ error: `${name}=${spec.type === 'secret' ? '(hidden)' : JSON.stringify(raw)} ${why}` });
  const value = raw.trim();
  switch (spec.type) {
    case 'int': {
      if (!/^-?\d+$/.test(value)) return bad('must be an integer');
      const n = Number(value);
      if (spec.min !== undefined && n < spec.min) return bad(`must be at least ${spec.min}`);
      if (spec.max !== undefined && n > spec.max) return bad(`must be at most ${spec.max}`);
      return { value: n };
    }
    case 'bool': {
      if (/^(true|1|yes|on)$/i.test(value)) return { value: true };
      if (/^(false|0|no|off)$/i.test(value)) return { value: false };
      return bad('must be true or false');
    }
    case 'enum':
      return spec.values!.includes(value) ? { value } : bad(`must be one of ${spec.values!.join(', ')}`);
    case 'list': {
      const items = value === '' ? [] : value.split(',').map((s) => s.trim()).filter(Boolean);
      const unknown = spec.values ? items.filter((i) => !spec.values!.includes(i)) : [];
      if (unknown.length) return bad(`has unknown item(s) ${unknown.join(', ')}; allowed: ${spec.values!.join(', ')}`);
      return { value: items };
    }
    case 'url': {
      if (value === '') return { value };
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return bad('is not a valid URL');
      }
      const scheme = url.protocol.replace(/:$/, '');
      if (spec.schemes && !spec.schemes.includes(scheme)) return bad(`must use scheme ${spec.schemes.map((s) => `${s}://`).join(' or ')}`);
      return { value };
    }
    default: {
      const problem = spec.check?.(value);
      return problem ? bad(problem) : { value };
    }
  }
}

/** Reads KEY=VALUE pairs from a .env file if present (never overrides the real environment). */
export function readDotenv(path: string): Record<string, string> {
  return existsSync(path) ? parseDotenv(readFileSync(path)) : {};
}

/**
 * Validates the environment against ENV_SCHEMA and returns the typed configuration.
 * Throws ConfigError listing every bad variable, so start-up can stop with one clear message.
 */
export function loadConfig(source: NodeJS.ProcessEnv = process.env, dotenvPath = resolve('.env')): Config {
  const merged: Record<string, string | undefined> = { ...readDotenv(dotenvPath), ...source };
  const problems: string[] = [];
  const env: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(ENV_SCHEMA) as [string, VarSpec][]) {
    const raw = merged[name] ?? spec.default ?? '';
    const parsed = parseVar(name, spec, raw);
    if ('error' in parsed) problems.push(parsed.error);
    else env[name] = parsed.value;
  }
  if (problems.length) throw new ConfigError(problems);
  const typed = env as Env;
  if (typed.STORAGE_DRIVER === 's3' && !typed.S3_BUCKET) problems.push('S3_BUCKET must be set when STORAGE_DRIVER=s3');
  if (typed.EMAIL_ENABLED && !typed.SMTP_HOST) problems.push('SMTP_HOST must be set when EMAIL_ENABLED=true');
  if (problems.length) throw new ConfigError(problems);
  return {
    env: typed,
    network: deriveProxyNetwork(typed.SERVICE_DOCKER_NETWORK_PREFIX),
    embedded: { database: !typed.DATABASE_URL, redis: !typed.REDIS_URL, objects: typed.STORAGE_DRIVER === 'local' },
  };
}
