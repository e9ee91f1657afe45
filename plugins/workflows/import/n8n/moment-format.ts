/**
 * Date & Time version 1 writes and reads dates with moment.js format tokens; the `datetime`
 * node uses Luxon's. This rewrites a moment format as Luxon tokens, or names the first token
 * that has no Luxon equivalent (ordinals such as `Do`, locale weeks, lowercase `a`, ...).
 */
const TOKENS: [string, string | null][] = [
  ['YYYY', 'yyyy'], ['YY', 'yy'], ['Q', 'q'],
  ['MMMM', 'MMMM'], ['MMM', 'MMM'], ['MM', 'MM'], ['Mo', null], ['M', 'M'],
  ['DDDD', 'ooo'], ['DDDo', null], ['DDD', 'o'], ['DD', 'dd'], ['Do', null], ['D', 'd'],
  ['dddd', 'cccc'], ['ddd', 'ccc'], ['dd', null], ['do', null], ['d', null], ['E', 'E'], ['e', null],
  ['WW', 'WW'], ['Wo', null], ['W', 'W'], ['ww', null], ['w', null], ['GGGG', 'kkkk'], ['GG', 'kk'], ['gggg', null], ['gg', null],
  ['HH', 'HH'], ['H', 'H'], ['hh', 'hh'], ['h', 'h'], ['kk', null], ['k', null], ['A', 'a'], ['a', null],
  ['mm', 'mm'], ['m', 'm'], ['ss', 'ss'], ['s', 's'], ['SSS', 'SSS'], ['SS', null], ['S', null],
  ['X', 'X'], ['x', 'x'], ['ZZ', 'ZZZ'], ['Z', 'ZZ'], ['zz', null], ['z', null],
];

/** Literal text as Luxon writes it: in single quotes, a quote doubled. */
const literal = (text: string) => (text ? `'${text.replaceAll("'", "''")}'` : '');

export type MomentFormat = { ok: true; luxon: string } | { ok: false; token: string };

export function momentToLuxon(format: string): MomentFormat {
  let out = '';
  let pending = '';
  const flush = () => {
    out += /[A-Za-z']/.test(pending) ? literal(pending) : pending;
    pending = '';
  };
  for (let i = 0; i < format.length; ) {
    if (format[i] === '[') {
      const end = format.indexOf(']', i + 1);
      if (end < 0) return { ok: false, token: format.slice(i) };
      pending += format.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    const match = TOKENS.find(([token]) => format.startsWith(token, i));
    if (!match) {
      pending += format[i];
      i += 1;
      continue;
    }
    if (match[1] === null) return { ok: false, token: match[0] };
    flush();
    out += match[1];
    i += match[0].length;
  }
  flush();
  return { ok: true, luxon: out };
}
