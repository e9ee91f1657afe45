import { parseExpression, splitTemplate, type Reference, type Segment } from './expressions.ts';

/** Where a node's items live in our run, as a template path: `sort.output.items`; `single` when the value is the one item itself (an entry step's payload). */
export interface ItemsRef {
  path: string;
  single: boolean;
}

/** A list of items as a config value: the whole-string template, or a one-element list around a single item. */
export function itemsValue(ref: ItemsRef | undefined): unknown {
  if (!ref) return [];
  return ref.single ? [`{{${ref.path}}}`] : `{{${ref.path}}}`;
}

export interface TranslateContext {
  /** item: a step with `each` ($json is `{{item}}`); first: a step run once ($json is the first input item) */
  mode: 'item' | 'first';
  input?: ItemsRef;
  nodeItems(name: string): ItemsRef | undefined;
  /** the template path of a computing expression's value in the generated code step (allocates the step on first use) */
  computed(key: string): string;
  /** the workflow's time zone (date-times without an offset) */
  zone?: string;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A data path as template path segments, or undefined when a key cannot be written in one. */
export function pathText(path: Segment[]): string | undefined {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (IDENT.test(key)) out += `.${key}`;
    else if (!/["'.[\]{}]/.test(key) && key !== '') out += `["${key}"]`;
    else return undefined;
  }
  return out;
}

/** A field path for the data node types (`a.b[0]`), from a data path. */
export function fieldText(path: Segment[]): string | undefined {
  const text = pathText(path);
  return text === undefined ? undefined : text.replace(/^\./, '');
}

/**
 * Translates n8n parameter values into our config values for one node: pure references become
 * templates, computing expressions are collected (each gets a key `e<n>` in the generated code
 * step), and anything that cannot be carried over is a problem (the node is then unmapped).
 */
export class ExpressionTranslator {
  readonly computing: { key: string; source: string; nodes: string[]; shown?: string }[] = [];
  readonly problems: string[] = [];
  /** what differs (literal text read as templates here) */
  readonly approx: string[] = [];
  /** n8n node names the translated values read */
  readonly reads = new Set<string>();
  /** whether a value is computed per item for the node (`operand`): its code step then runs once per item */
  perItem = false;

  constructor(private readonly ctx: TranslateContext) {}

  private first(ref: ItemsRef): string {
    return ref.single ? ref.path : `${ref.path}[0]`;
  }

  /** The template path of a reference, or undefined when it has none (it is then computed). */
  private refPath(ref: Reference): string | undefined {
    const tail = pathText(ref.path);
    if (tail === undefined) return undefined;
    const { input, mode } = this.ctx;
    switch (ref.root) {
      case 'json':
        if (mode === 'item') return `item${tail}`;
        return input ? this.first(input) + tail : undefined;
      case 'input':
        if (!input) return undefined;
        if (ref.pick === 'all') return input.single ? undefined : input.path;
        return this.first(input) + tail;
      case 'vars':
        return IDENT.test(ref.name) ? ref.name + tail : undefined;
      case 'node': {
        this.reads.add(ref.node);
        const items = this.ctx.nodeItems(ref.node);
        if (!items) {
          this.problems.push(`an expression reads node '${ref.node}', which is not in the export or has no items here`);
          return '';
        }
        if (ref.pick === 'all') return items.single ? undefined : items.path;
        if (items.single) return items.path + tail;
        return (ref.pick === 'item' && mode === 'item' ? `${items.path}[$item]` : `${items.path}[0]`) + tail;
      }
    }
  }

  /** One expression as a template path. */
  private expression(source: string): string {
    const parsed = parseExpression(source);
    if (parsed.kind === 'invalid') {
      this.problems.push(`the expression {{ ${source.trim().slice(0, 200)} }} ${parsed.message}`);
      return '';
    }
    if (parsed.kind === 'reference') {
      const path = this.refPath(parsed.ref);
      if (path !== undefined) return path;
    }
    const key = this.collect(source, parsed);
    return key === undefined ? '' : this.ctx.computed(key);
  }

  /** A computing expression collected for the generated code step (its key), or undefined with a problem when it cannot run there. */
  private collect(source: string, parsed: ReturnType<typeof parseExpression>): string | undefined {
    if (parsed.kind === 'invalid') {
      this.problems.push(`the expression {{ ${source.trim().slice(0, 200)} }} ${parsed.message}`);
      return undefined;
    }
    const nodes = parsed.kind === 'computing' ? parsed.nodes : parsed.ref.root === 'node' ? [parsed.ref.node] : [];
    const blocked = parsed.kind === 'computing' ? parsed.blocked : [];
    const unsupported = parsed.kind === 'computing' ? parsed.unsupported : [];
    if (blocked.includes('$env')) {
      this.problems.push(`the expression {{ ${source.trim().slice(0, 200)} }} reads $env: environment variables of the n8n instance are not imported (use a workflow variable)`);
      return undefined;
    }
    if (blocked.length) {
      this.problems.push(`the expression {{ ${source.trim().slice(0, 200)} }} uses ${blocked.join(', ')}, which the n8n code dialect here does not have`);
      return undefined;
    }
    if (unsupported.length) {
      this.problems.push(`the expression {{ ${source.trim().slice(0, 200)} }} calls n8n's ${unsupported.map((n) => `.${n}()`).join(', ')}, which the n8n code dialect here does not implement`);
      return undefined;
    }
    if (parsed.kind === 'computing') this.approx.push(...parsed.approx);
    for (const node of nodes) {
      this.reads.add(node);
      if (!this.ctx.nodeItems(node)) this.problems.push(`an expression reads node '${node}', which is not in the export or has no items here`);
    }
    const key = `e${this.computing.length}`;
    const code = parsed.kind === 'computing' ? parsed.code : source.trim();
    this.computing.push({ key, source: code, nodes, ...(code !== source.trim() ? { shown: source.trim() } : {}) });
    return key;
  }

  /**
   * A JavaScript expression (n8n dialect) computed once per item by the generated code step, for
   * a node that reads it per item (a condition's operand): its key in each item's element, or
   * undefined with a problem. `shown`: the n8n expression to report, when `source` wraps it.
   */
  operand(source: string, shown?: string): string | undefined {
    const parsed = parseExpression(source);
    if (parsed.kind === 'reference' && parsed.ref.root === 'vars') {
      this.problems.push(`the expression {{ ${source.trim().slice(0, 200)} }} reads $vars where a value per item is computed: the n8n code dialect here has no $vars`);
      return undefined;
    }
    const key = this.collect(source, parsed);
    if (key === undefined) return undefined;
    if (shown !== undefined) this.computing[this.computing.length - 1].shown = shown;
    this.ctx.computed(key);
    this.perItem = true;
    return key;
  }

  /** The workflow's time zone. */
  get zone(): string {
    return this.ctx.zone ?? 'UTC';
  }

  /** A parameter value: strings starting with `=` are n8n expressions; objects and lists are walked. */
  value(raw: unknown): unknown {
    if (typeof raw === 'string') return this.text(raw);
    if (Array.isArray(raw)) return raw.map((v) => this.value(v));
    if (raw && typeof raw === 'object') return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, this.value(v)]));
    return raw;
  }

  private text(raw: string): unknown {
    if (!raw.startsWith('=')) {
      if (raw.includes('{{')) this.approx.push(`the literal text '${raw.slice(0, 80)}' holds {{ }}, which is read as a template here`);
      return raw;
    }
    const parts = splitTemplate(raw.slice(1));
    if (!parts.some((p) => typeof p !== 'string')) return raw.slice(1);
    return parts.map((p) => (typeof p === 'string' ? p : `{{${this.expression(p.expression)}}}`)).join('');
  }

  /**
   * A condition's left side as a field of the item (`={{ $json.a.b }}` -> `a.b`), or undefined
   * when it is anything else (a problem is recorded).
   */
  field(raw: unknown, what: string): string | undefined {
    const whole = typeof raw === 'string' ? /^=\s*\{\{([\s\S]*)\}\}\s*$/.exec(raw) : null;
    const parsed = whole ? parseExpression(whole[1]) : undefined;
    const field = parsed?.kind === 'reference' && parsed.ref.root === 'json' ? fieldText(parsed.ref.path) : undefined;
    if (field === undefined) this.problems.push(`${what} is not a field of the item ({{ $json.<field> }}): ${String(typeof raw === 'string' ? raw : JSON.stringify(raw)).slice(0, 200)}`);
    return field;
  }
}
