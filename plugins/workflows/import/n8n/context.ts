import type { MappedNode } from '../graph.ts';
import type { ExpressionTranslator, ItemsRef } from './translate.ts';

/** One node of an n8n workflow export. */
export interface N8nNode {
  name: string;
  type: string;
  typeVersion?: unknown;
  parameters?: unknown;
  credentials?: unknown;
  disabled?: unknown;
}

/** What a node's mapper knows: its parameters, its step id, where its input items are, and a translator for its expressions. */
export interface NodeCtx {
  node: N8nNode;
  /** the type without `n8n-nodes-base.` */
  short: string;
  version: number;
  id: string;
  p: Record<string, unknown>;
  /** the items of its (first) input */
  input?: ItemsRef;
  /** the items of each input by index (Merge) */
  inputs: (ItemsRef | undefined)[];
  /** the workflow's time zone (settings.timezone, else UTC) */
  zone: string;
  /** what the n8n dialect's input tells of the run (N8nCodeInput): `zone`, `workflow.name`, `run_index` (a loop's iteration, for a node in its body) */
  dialect: DialectInput;
  /** the variable holding each credential the node uses, by credential type */
  credentials: Record<string, string>;
  /** a translator for its expressions in this mode (one per node: what it collects decides the node's status) */
  translator(mode: 'item' | 'first'): ExpressionTranslator;
  nodeItems(name: string): ItemsRef | undefined;
}

/** The run facts of an n8n dialect code step's input (the code node adds the run's ids). */
export interface DialectInput {
  zone: string;
  workflow: { name: string };
  /** a template of the enclosing loop's iteration */
  run_index?: string;
}

/** A node's mapping: our step type and config, where its outputs' items are, and what differs. */
export interface NodeMapping {
  type: string;
  config: Record<string, unknown>;
  items(output: number): ItemsRef | undefined;
  place?: MappedNode['place'];
  /** what behaves differently here (the node is then `approximated`) */
  approx: string[];
  /** why it cannot be carried over (the node is then `unmapped`) */
  problems: string[];
  /** a sticky note: no edges, no items */
  detached?: boolean;
}

/** The items of a step whose output is its list of items. */
export const ownList = (id: string, key = '') => (): ItemsRef => ({ path: `${id}.output${key}`, single: false });
