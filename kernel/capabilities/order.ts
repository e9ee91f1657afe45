import type { PackageDescriptor } from './manifest.ts';

/**
 * Orders packages so each comes after the packages it `requires`. Packages in a cycle or
 * requiring an unknown package keep their place; the loader then reports what is missing.
 */
export function orderByRequires(packages: PackageDescriptor[]): PackageDescriptor[] {
  const byName = new Map(packages.map((p) => [p.name, p]));
  const ordered: PackageDescriptor[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: PackageDescriptor): void => {
    if (state.get(p.name)) return;
    state.set(p.name, 'visiting');
    for (const req of p.capability.requires ?? []) {
      const dep = byName.get(req);
      if (dep && !state.get(dep.name)) visit(dep);
    }
    state.set(p.name, 'done');
    ordered.push(p);
  };
  for (const p of packages) visit(p);
  return ordered;
}
