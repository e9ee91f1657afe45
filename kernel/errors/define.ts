import { Errors } from 'moleculer';

/**
 * A flat catalogue of errors with stable codes (Fastify-style), carried as MoleculerError so
 * the code, HTTP status and data survive a hop between nodes. The gateway maps them to
 * RFC 9457 problem details in one place (`problem.ts`).
 */
export interface ErrorDefinition {
  code: string;
  status: number;
  title: string;
  retryable?: boolean;
}

export type KernelError = Errors.MoleculerError & { type: string; code: number; data?: unknown };

export interface ErrorFactory<D extends object = Record<string, unknown>> {
  (detail?: string, data?: D): KernelError;
  readonly definition: ErrorDefinition;
  /** true when the error (possibly regenerated on another node) has this definition's code */
  is(err: unknown): err is KernelError;
}

/**
 * Every definition made in this process, so the gateway can title a package's own codes. Kept
 * on globalThis: a hot-loaded package imports its own instance of this module (each load is a
 * fresh module namespace), and its definitions must land in the one map the gateway reads.
 */
const REGISTRY = Symbol.for('wao.errors.defined');
const DEFINED: Map<string, ErrorDefinition> = ((globalThis as Record<symbol, unknown>)[REGISTRY] as Map<string, ErrorDefinition> | undefined) ??
  ((globalThis as Record<symbol, unknown>)[REGISTRY] = new Map<string, ErrorDefinition>()) as Map<string, ErrorDefinition>;

export function definitionOf(code: string): ErrorDefinition | undefined {
  return DEFINED.get(code);
}

export function defineError<D extends object = Record<string, unknown>>(definition: ErrorDefinition): ErrorFactory<D> {
  DEFINED.set(definition.code, Object.freeze({ ...definition }));
  const factory = ((detail?: string, data?: D) => {
    const ErrorClass = definition.retryable ? Errors.MoleculerRetryableError : Errors.MoleculerError;
    const err = new ErrorClass(detail ?? definition.title, definition.status, definition.code, (data ?? {}) as object) as KernelError;
    return err;
  }) as ErrorFactory<D>;
  Object.defineProperty(factory, 'definition', { value: Object.freeze({ ...definition }) });
  factory.is = (err: unknown): err is KernelError => typeof err === 'object' && err !== null && (err as { type?: unknown }).type === definition.code;
  return factory;
}
