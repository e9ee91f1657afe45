/**
 * n8n's data transformation functions (kernel/sandbox-contract.ts N8N_EXTENSION_METHODS), as
 * the JavaScript source of a function `(DateTime) => $__ext` run inside the isolate by the n8n
 * dialect's binding. `$__ext(value, name, args, optional)` is what the importer turns a call
 * `value.name(...args)` of a computing expression into: it takes the function of that name for
 * the value's type (string, number, boolean, array, date: a Luxon DateTime or a Date, object),
 * else the value's own method (`'a,b'.split(',')`, `[1].includes(1)`), else fails as JavaScript
 * would. On null or undefined, `isEmpty()` is true and `isNotEmpty()` false (as n8n documents);
 * an optional call (`value?.name()`) is undefined; anything else fails.
 *
 * Numbers read from strings (`toNumber`, `sum`, ...) must be numbers: a value that is not fails
 * the step rather than giving NaN. Date units are Luxon's (`day` or `days`, ...).
 */
export const N8N_EXTENSIONS_SOURCE = `(DateTime) => {
  const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  const typeOf = (v) => v === null || v === undefined ? 'null' : Array.isArray(v) ? 'array' : DateTime.isDateTime(v) || v instanceof Date ? 'date'
    : typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? typeof v : typeof v === 'object' ? 'object' : 'other';
  const fail = (name, why) => { throw new TypeError(name + '(): ' + why); };
  const show = (v) => { try { return JSON.stringify(v); } catch { return String(v); } };
  const number = (name) => (x) => {
    const n = typeof x === 'number' ? x : typeof x === 'string' && x.trim() !== '' ? Number(x) : NaN;
    if (!Number.isFinite(n)) fail(name, show(x) + ' is not a number');
    return n;
  };
  const parsed = (name, parse, text) => { const n = parse(text.trim()); if (Number.isNaN(n)) fail(name, show(text) + ' is not a number'); return n; };
  const canon = (v) => JSON.stringify(v, (k, x) => x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().map((key) => [key, x[key]])) : x);
  const fieldsOf = (args) => args.flat().flatMap((a) => String(a).split(',')).map((f) => f.trim()).filter(Boolean);
  const uniqueBy = (list, args) => {
    const fields = fieldsOf(args);
    const seen = new Set();
    return list.filter((el) => {
      const key = canon(fields.length ? fields.map((f) => (el !== null && typeof el === 'object' ? el[f] : undefined)) : el);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  };
  const dt = (v, name) => {
    if (DateTime.isDateTime(v)) return v;
    if (v instanceof Date) return DateTime.fromJSDate(v);
    if (typeof v === 'string') { const d = DateTime.fromISO(v); if (d.isValid) return d; }
    if (typeof v === 'number') return DateTime.fromMillis(v);
    return fail(name, show(v) + ' is not a date');
  };
  const sameKind = (original, d) => (original instanceof Date ? d.toJSDate() : d);
  const unitOf = (unit, fallback) => (typeof unit === 'string' && unit ? unit : fallback);
  const EMAIL = /[A-Za-z0-9.!#$%&'*+/=?^_\`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+/;
  const FALSY = ['false', 'no', '0'];
  const toJsonString = (v) => JSON.stringify(v);
  const ext = {
    string: {
      isEmpty: (s) => s.length === 0,
      isNotEmpty: (s) => s.length > 0,
      isEmail: (s) => new RegExp('^' + EMAIL.source + '$').test(s),
      extractEmail: (s) => { const m = EMAIL.exec(s); return m ? m[0] : undefined; },
      removeTags: (s) => s.replace(/<[^>]*>?/g, ''),
      toNumber: (s) => number('toNumber')(s),
      toInt: (s) => parsed('toInt', (t) => Number.parseInt(t, 10), s),
      toWholeNumber: (s) => parsed('toWholeNumber', (t) => Number.parseInt(t, 10), s),
      toFloat: (s) => parsed('toFloat', Number.parseFloat, s),
      toDecimalNumber: (s) => parsed('toDecimalNumber', Number.parseFloat, s),
      toBoolean: (s) => { const t = s.trim().toLowerCase(); return t.length > 0 && !FALSY.includes(t); },
      toDateTime: (s, format) => {
        if (typeof format === 'string' && format) { const d = DateTime.fromFormat(s, format); return d.isValid ? d : fail('toDateTime', show(s) + ' does not match the format ' + show(format)); }
        for (const parse of [(t) => DateTime.fromISO(t), (t) => DateTime.fromHTTP(t), (t) => DateTime.fromRFC2822(t), (t) => DateTime.fromSQL(t)]) { const d = parse(s); if (d.isValid) return d; }
        const date = new Date(s);
        return Number.isNaN(date.getTime()) ? fail('toDateTime', show(s) + ' is not a date') : DateTime.fromJSDate(date);
      },
      parseJson: (s) => JSON.parse(s),
      toJsonString,
    },
    array: {
      isEmpty: (a) => a.length === 0,
      isNotEmpty: (a) => a.length > 0,
      first: (a) => a[0],
      last: (a) => a[a.length - 1],
      sum: (a) => a.map(number('sum')).reduce((x, y) => x + y, 0),
      average: (a) => (a.length ? a.map(number('average')).reduce((x, y) => x + y, 0) / a.length : 0),
      min: (a) => Math.min(...a.map(number('min'))),
      max: (a) => Math.max(...a.map(number('max'))),
      unique: (a, ...fields) => uniqueBy(a, fields),
      removeDuplicates: (a, ...fields) => uniqueBy(a, fields),
      chunk: (a, size) => { const n = Number(size); if (!Number.isInteger(n) || n < 1) fail('chunk', 'the size must be a whole number above 0'); const out = []; for (let i = 0; i < a.length; i += n) out.push(a.slice(i, i + n)); return out; },
      difference: (a, other) => { const keys = new Set((Array.isArray(other) ? other : []).map(canon)); return a.filter((x) => !keys.has(canon(x))); },
      intersection: (a, other) => { const keys = new Set((Array.isArray(other) ? other : []).map(canon)); return uniqueBy(a.filter((x) => keys.has(canon(x))), []); },
      union: (a, other) => uniqueBy([...a, ...(Array.isArray(other) ? other : [])], []),
      append: (a, ...more) => [...a, ...more],
      randomItem: (a) => a[Math.floor(Math.random() * a.length)],
      toJsonString,
    },
    number: {
      round: (n, places) => { const f = 10 ** (Number(places) || 0); return Math.round(n * f) / f; },
      ceil: (n) => Math.ceil(n),
      floor: (n) => Math.floor(n),
      abs: (n) => Math.abs(n),
      isEven: (n) => (Number.isInteger(n) ? n % 2 === 0 : fail('isEven', 'only whole numbers are even or odd')),
      isOdd: (n) => (Number.isInteger(n) ? Math.abs(n % 2) === 1 : fail('isOdd', 'only whole numbers are even or odd')),
      isInteger: (n) => Number.isInteger(n),
      toBoolean: (n) => n !== 0,
      toDateTime: (n, format) => {
        const kind = unitOf(format, 'ms');
        if (kind === 'ms') return DateTime.fromMillis(n);
        if (kind === 's') return DateTime.fromSeconds(n);
        if (kind === 'excel') return DateTime.fromMillis(Math.round((n - 25569) * 86400000), { zone: 'UTC' });
        return fail('toDateTime', 'the format is ms, s or excel, not ' + show(format));
      },
      format: (n, locale, options) => new Intl.NumberFormat(locale === undefined ? 'en-US' : locale, options).format(n),
      toJsonString,
    },
    boolean: {
      toNumber: (b) => (b ? 1 : 0),
      toJsonString,
    },
    object: {
      isEmpty: (o) => Object.keys(o).length === 0,
      isNotEmpty: (o) => Object.keys(o).length > 0,
      hasField: (o, field) => has(o, field),
      keys: (o) => Object.keys(o),
      values: (o) => Object.values(o),
      removeField: (o, field) => { const out = { ...o }; delete out[field]; return out; },
      merge: (o, other) => ({ ...(other !== null && typeof other === 'object' ? other : {}), ...o }),
      toJsonString,
    },
    date: {
      format: (d, fmt) => (typeof fmt === 'string' ? dt(d, 'format').toFormat(fmt) : fail('format', 'a format such as yyyy-MM-dd is needed')),
      plus: (d, n, unit) => (typeof n === 'number' ? sameKind(d, dt(d, 'plus').plus({ [unitOf(unit, 'minutes')]: n })) : DateTime.isDateTime(d) ? d.plus(n) : fail('plus', 'the amount must be a number')),
      minus: (d, n, unit) => (typeof n === 'number' ? sameKind(d, dt(d, 'minus').minus({ [unitOf(unit, 'minutes')]: n })) : DateTime.isDateTime(d) ? d.minus(n) : fail('minus', 'the amount must be a number')),
      toDateTime: (d) => dt(d, 'toDateTime'),
      beginningOf: (d, unit) => sameKind(d, dt(d, 'beginningOf').startOf(unitOf(unit, 'week'))),
      endOfMonth: (d) => sameKind(d, dt(d, 'endOfMonth').endOf('month')),
      extract: (d, unit) => { const u = unitOf(unit, 'week').replace(/s$/, ''); return dt(d, 'extract').get(u === 'week' ? 'weekNumber' : u); },
      isWeekend: (d) => dt(d, 'isWeekend').weekday >= 6,
      isBetween: (d, a, b) => { const x = +dt(d, 'isBetween'), p = +dt(a, 'isBetween'), q = +dt(b, 'isBetween'); return x > Math.min(p, q) && x < Math.max(p, q); },
      isDst: (d) => dt(d, 'isDst').isInDST,
      isInLast: (d, n, unit) => { const now = DateTime.now(); const x = dt(d, 'isInLast'); return x >= now.minus({ [unitOf(unit, 'minutes')]: Number(n) || 0 }) && x <= now; },
    },
  };
  return (value, name, args, optional) => {
    const type = typeOf(value);
    if (type === 'null') {
      if (optional) return undefined;
      if (name === 'isEmpty') return true;
      if (name === 'isNotEmpty') return false;
      throw new TypeError('Cannot read properties of ' + value + " (reading '" + name + "')");
    }
    const own = ext[type];
    if (own && has(own, name)) return own[name](value, ...args);
    const method = value[name];
    if (typeof method === 'function') return method.apply(value, args);
    throw new TypeError(name + '() is not a function of ' + (type === 'other' ? typeof value : type === 'array' ? 'an array' : type === 'object' ? 'an object' : 'a ' + type) + ' here');
  };
}`;
