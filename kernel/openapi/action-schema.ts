/**
 * Types our documentation keys on moleculer action schemas, so services can
 * declare `summary`, `response`, `auth: false`, ... next to `rest` and `params`
 * (moleculer-web augments `rest` the same way). Type-only; nothing runs.
 */
import type { ActionDocKeys } from './types.ts';

declare module 'moleculer' {
	interface ActionSchema extends ActionDocKeys {}
}
