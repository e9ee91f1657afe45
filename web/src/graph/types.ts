import type { ResponseOf } from '../api/client';

export type NodeTypeInfo = ResponseOf<'/api/v1/workflows/node-types', 'get'>['items'][number];

/** A workflow step as the API stores it (`position` only where an editor placed it). */
export interface Step {
  id: string;
  type: string;
  name?: string;
  config: Record<string, unknown>;
  next: string[];
  position?: { x: number; y: number };
}

export const STEP_ID_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;

type ApiStep = NonNullable<NonNullable<import('../api/schema').paths['/api/v1/workflows/{id}']['put']['requestBody']>['content']['application/json']['steps']>[number];

/**
 * Steps as the generated client types a request body. A step config is a free JSON object,
 * which openapi-typescript renders as an object of `undefined` values, so the cast is needed.
 */
export function apiSteps(steps: Step[]): ApiStep[] {
  return steps as unknown as ApiStep[];
}

export function apiConfig(config: Record<string, unknown>): ApiStep['config'] {
  return config as unknown as ApiStep['config'];
}
