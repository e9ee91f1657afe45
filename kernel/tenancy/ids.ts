import { v7 } from 'uuid';

/** Identifiers are UUIDv7 strings: unique, and sortable by creation time. */
export function newId(): string {
  return v7();
}
