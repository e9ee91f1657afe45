/**
 * The models package's call contract, for other packages to import types from. It lives in the
 * kernel (packages share code only through kernel/): this file re-exports it.
 */
export * from '../../kernel/models-contract.ts';
