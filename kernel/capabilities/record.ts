import type { CapabilityKind, Role } from './manifest.ts';

/** skipped: not in this node's roles; disabled: turned off by CAPABILITY_DISABLED */
export type PackageState = 'loaded' | 'failed' | 'reload_failed' | 'skipped' | 'disabled' | 'unloaded';

/** What `GET /api/v1/capability-packages` shows of one package on one node. */
export interface PackageRecord {
  name: string;
  kind: CapabilityKind | null;
  version: string | null;
  roles: Role[];
  node: string;
  dir: string;
  state: PackageState;
  /** set when the last load or reload failed; with reload_failed the previous version keeps serving */
  error: { code: string; message: string } | null;
  services: string[];
  generation: number;
  updated_at: string;
}
