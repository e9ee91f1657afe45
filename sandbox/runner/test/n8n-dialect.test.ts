import test from 'ava';
import { IsolateDriver } from '../isolate/driver.ts';
import { SandboxRunner } from '../runner.ts';
import type { SandboxLimits } from '../limits.ts';
import { N8N_EXTENSION_METHODS, type N8nCodeInput } from '../../../kernel/sandbox-contract.ts';

const limits: SandboxLimits = { timeoutMs: 30_000, memoryMb: 32, maxInputBytes: 64 * 1024, maxOutputBytes: 64 * 1024, concurrency: 2, warmIsolates: 2 };
const runner = new SandboxRunner(limits, [new IsolateDriver(limits.warmIsolates, limits.memoryMb)]);
test.after.always(() => runner.close());

const n8n = async (code: string, input: Partial<N8nCodeInput> = {}): Promise<unknown> =>
  (await runner.run({ code, dialect: 'n8n', entity_id: 'e-n8n', input: { mode: 'all', items: [], ...input } })).result;
/** One expression as the importer generates it: `$__ext(value, name, args)` for a data transformation function. */
const ext = (value: string, name: string, args = '') => n8n(`return $__ext(${value}, ${JSON.stringify(name)}, [${args}]);`);

test('DateTime, Duration and Interval are Luxon, in the input zone; $now and $today are DateTimes of now there', async (t) => {
  const out = (await n8n(
    `const at = DateTime.fromISO('2024-03-31T00:30:00Z');
     return { local: at.toISO(), zone: $now.zoneName, today: $today.toFormat('HH:mm:ss'), sameDay: $today.hasSame($now, 'day'),
       now: $now.toMillis() >= input.before && $now.toMillis() <= Date.now(), hours: Duration.fromObject({ minutes: 90 }).as('hours'),
       days: Interval.fromDateTimes(at, at.plus({ days: 3 })).length('days'), dst: at.plus({ hours: 1 }).toFormat('HH:mm ZZ') };`,
    { zone: 'Europe/Paris', before: Date.now() } as Partial<N8nCodeInput>,
  )) as Record<string, unknown>;
  t.deepEqual(out, { local: '2024-03-31T01:30:00.000+01:00', zone: 'Europe/Paris', today: '00:00:00', sameDay: true, now: true, hours: 1.5, days: 3, dst: '03:30 +02:00' });
  t.is(await n8n('return $now.zoneName;'), 'UTC');
});

test('an unknown zone fails the run; the library global is gone before the code runs', async (t) => {
  const err = await t.throwsAsync(n8n('return 1;', { zone: 'Mars/Olympus' }));
  t.is((err as any).type, 'SANDBOX_ERR_RUNTIME');
  t.regex(err!.message, /Mars\/Olympus/);
  t.deepEqual(await n8n('return [typeof globalThis.__wao_luxon, typeof luxon, typeof require];'), ['undefined', 'undefined', 'undefined']);
});

test('$itemIndex, $runIndex, $workflow and $execution come from the input', async (t) => {
  const code = 'return { i: $itemIndex, r: $runIndex, w: $workflow, e: $execution };';
  t.deepEqual(await n8n(code, { mode: 'each', item: { a: 1 }, index: 2, run_index: 3, workflow: { id: 'wf-1', name: 'Orders', active: true }, execution: { id: 'run-9' } }), {
    i: 2, r: 3, w: { id: 'wf-1', name: 'Orders', active: true }, e: { id: 'run-9' },
  });
  t.deepEqual(await n8n(code), { i: 0, r: 0, w: { id: null, name: null, active: false }, e: { id: null } });
});

test('string functions', async (t) => {
  t.deepEqual(await n8n(`return [
    $__ext('', 'isEmpty', []), $__ext('a', 'isEmpty', []), $__ext('a', 'isNotEmpty', []), $__ext(null, 'isEmpty', []), $__ext(undefined, 'isNotEmpty', []),
    $__ext('ann@example.com', 'isEmail', []), $__ext('ann at example', 'isEmail', []), $__ext('Write to Ann <ann.lee@mail.example.org> today', 'extractEmail', []),
    $__ext('no address', 'extractEmail', []) === undefined, $__ext('<p>Hi <b>there</b></p>', 'removeTags', []),
    $__ext(' 12.5 ', 'toNumber', []), $__ext('12.7px', 'toInt', []), $__ext('42', 'toWholeNumber', []), $__ext('3.25kg', 'toFloat', []), $__ext('3.5', 'toDecimalNumber', []),
    $__ext('Yes', 'toBoolean', []), $__ext('no', 'toBoolean', []), $__ext('0', 'toBoolean', []), $__ext('', 'toBoolean', []),
    $__ext('{"a":[1]}', 'parseJson', []), $__ext('a"b', 'toJsonString', []),
  ];`), [true, false, true, true, false, true, false, 'ann.lee@mail.example.org', true, 'Hi there', 12.5, 12, 42, 3.25, 3.5, true, false, false, false, { a: [1] }, '"a\\"b"']);
  const err = await t.throwsAsync(ext("'twelve'", 'toNumber'));
  t.regex(err!.message, /toNumber\(\): "twelve" is not a number/);
});

test('string toDateTime reads ISO, HTTP, RFC 2822 and SQL dates, or a given format, in the zone', async (t) => {
  t.deepEqual(await n8n(`return [
    $__ext('2024-05-06T07:08:09Z', 'toDateTime', []).toISO(), $__ext('2024-05-06', 'toDateTime', []).toISO(),
    $__ext('Mon, 06 May 2024 07:08:09 GMT', 'toDateTime', []).toUTC().toISO(), $__ext('2024-05-06 07:08:09', 'toDateTime', []).toISO(),
    $__ext('06/05/2024', 'toDateTime', ['dd/MM/yyyy']).toISODate(),
  ];`, { zone: 'Europe/Berlin' }), ['2024-05-06T09:08:09.000+02:00', '2024-05-06T00:00:00.000+02:00', '2024-05-06T07:08:09.000Z', '2024-05-06T07:08:09.000+02:00', '2024-05-06']);
  await t.throwsAsync(ext("'soon'", 'toDateTime'), { message: /toDateTime\(\): "soon" is not a date/ });
});

test('array functions', async (t) => {
  t.deepEqual(await n8n(`const a = [3, '4', 5];
    const rows = [{ id: 1, c: 'x' }, { id: 2, c: 'x' }, { c: 'x', id: 1 }];
    return [
      $__ext([], 'isEmpty', []), $__ext(a, 'isNotEmpty', []), $__ext(a, 'first', []), $__ext(a, 'last', []), $__ext(a, 'sum', []), $__ext(a, 'average', []),
      $__ext(a, 'min', []), $__ext(a, 'max', []), $__ext([1, 2, 1, [1], [1]], 'unique', []), $__ext(rows, 'removeDuplicates', []), $__ext(rows, 'removeDuplicates', ['c']),
      $__ext(rows, 'unique', ['c, id']), $__ext([1, 2, 3, 4, 5], 'chunk', [2]), $__ext([1, 2, 3], 'difference', [[2]]), $__ext([1, 2, 2, 3], 'intersection', [[2, 3, 4]]),
      $__ext([1, 2], 'union', [[2, 3]]), $__ext([1], 'append', [2, 3]), [7, 8].includes($__ext([7, 8], 'randomItem', [])), $__ext([1, { a: 2 }], 'toJsonString', []),
      $__ext([], 'average', []), $__ext(['a', 'b'], 'includes', ['b']), $__ext('a,b', 'split', [',']), Array.from($__ext(['x'], 'keys', [])),
    ];`), [
    true, true, 3, 5, 12, 4, 3, 5, [1, 2, [1]], [{ id: 1, c: 'x' }, { id: 2, c: 'x' }], [{ id: 1, c: 'x' }],
    [{ id: 1, c: 'x' }, { id: 2, c: 'x' }], [[1, 2], [3, 4], [5]], [1, 3], [2, 3], [1, 2, 3], [1, 2, 3], true, '[1,{"a":2}]', 0, true, ['a', 'b'], [0],
  ]);
  await t.throwsAsync(ext("[1, 'x']", 'sum'), { message: /sum\(\): "x" is not a number/ });
});

test('number and boolean functions', async (t) => {
  t.deepEqual(await n8n(`return [
    $__ext(2.567, 'round', [2]), $__ext(2.5, 'round', []), $__ext(2.1, 'ceil', []), $__ext(2.9, 'floor', []), $__ext(-3, 'abs', []),
    $__ext(4, 'isEven', []), $__ext(-3, 'isOdd', []), $__ext(3.5, 'isInteger', []), $__ext(0, 'toBoolean', []), $__ext(2, 'toBoolean', []),
    $__ext(1714979289000, 'toDateTime', []).toUTC().toISO(), $__ext(1714979289, 'toDateTime', ['s']).toUTC().toISO(), $__ext(45418.5, 'toDateTime', ['excel']).toISO(),
    $__ext(1234567.891, 'format', []), $__ext(1234.5, 'format', ['de-DE', { style: 'currency', currency: 'EUR' }]),
    $__ext(true, 'toNumber', []), $__ext(false, 'toNumber', []), $__ext(5, 'toFixed', [1]),
  ];`), [2.57, 3, 3, 2, 3, true, true, false, false, true, '2024-05-06T07:08:09.000Z', '2024-05-06T07:08:09.000Z', '2024-05-06T12:00:00.000Z', '1,234,567.891', '1.234,50\u00a0€', 1, 0, '5.0']);
  await t.throwsAsync(ext('2.5', 'isEven'), { message: /isEven\(\): only whole numbers/ });
});

test('object functions', async (t) => {
  t.deepEqual(await n8n(`const o = { a: 1, b: null };
    return [$__ext({}, 'isEmpty', []), $__ext(o, 'isNotEmpty', []), $__ext(o, 'hasField', ['b']), $__ext(o, 'hasField', ['c']), $__ext(o, 'keys', []),
      $__ext(o, 'values', []), $__ext(o, 'removeField', ['a']), o.a, $__ext(o, 'merge', [{ a: 9, c: 3 }]), $__ext(o, 'toJsonString', [])];`),
  [true, true, true, false, ['a', 'b'], [1, null], { b: null }, 1, { a: 1, b: null, c: 3 }, '{"a":1,"b":null}']);
});

test('date functions on a DateTime and on a Date', async (t) => {
  t.deepEqual(await n8n(`const d = DateTime.fromISO('2024-05-04T10:30:00', { zone: 'UTC' });
    const js = new Date('2024-05-04T10:30:00Z');
    return [
      $__ext(d, 'format', ['yyyy-MM-dd HH:mm']), $__ext(d, 'plus', [2, 'days']).toISO(), $__ext(d, 'minus', [30]).toISO(), $__ext(d, 'plus', [{ hours: 1 }]).toISO(),
      $__ext(js, 'plus', [1, 'hour']).toISOString(), $__ext(js, 'format', ['dd.MM.yyyy']), $__ext(js, 'toDateTime', []).toISO(), $__ext(d, 'beginningOf', ['month']).toISO(),
      $__ext(d, 'beginningOf', []).toISODate(), $__ext(d, 'endOfMonth', []).toISO(), $__ext(d, 'extract', ['month']), $__ext(d, 'extract', []), $__ext(d, 'isWeekend', []),
      $__ext(d, 'isBetween', ['2024-05-05T00:00:00Z', '2024-05-01T00:00:00Z']), $__ext(d, 'isDst', []), $__ext($now.minus({ minutes: 5 }), 'isInLast', [1, 'hour']),
      $__ext(d, 'isInLast', [1, 'hour']), $__ext(d, 'toMillis', []),
    ];`), [
    '2024-05-04 10:30', '2024-05-06T10:30:00.000Z', '2024-05-04T10:00:00.000Z', '2024-05-04T11:30:00.000Z', '2024-05-04T11:30:00.000Z', '04.05.2024',
    '2024-05-04T10:30:00.000Z', '2024-05-01T00:00:00.000Z', '2024-04-29', '2024-05-31T23:59:59.999Z', 5, 18, true, true, false, true, false, 1714818600000,
  ]);
});

test('a call on null fails as in JavaScript unless it is optional; a function the value lacks fails by name', async (t) => {
  await t.throwsAsync(ext('null', 'first'), { message: /Cannot read properties of null \(reading 'first'\)/ });
  t.is(await n8n("return $__ext(undefined, 'first', [], true) ?? 'none';"), 'none');
  await t.throwsAsync(ext('5', 'first'), { message: /first\(\) is not a function of a number here/ });
});

test('every function the contract lists is the dialect\'s own for that type (none is a native method of the sample)', async (t) => {
  const samples: Record<string, string> = { string: "'a'", array: '[1]', number: '1', boolean: 'true', object: '{ a: 1 }', date: "new Date('2024-01-01T00:00:00Z')" };
  const code = `const table = ${JSON.stringify(N8N_EXTENSION_METHODS)}; const samples = { ${Object.entries(samples).map(([k, v]) => `${k}: () => (${v})`).join(', ')} };
    const missing = typeof $__ext === 'function' ? [] : ['$__ext is not bound'];
    if (missing.length) return missing;
    for (const [type, names] of Object.entries(table)) for (const name of names) {
      const sample = samples[type]();
      if (typeof sample[name] === 'function') missing.push(type + '.' + name + ' is native');
      try { $__ext(sample, name, [1, 'x']); } catch (e) { if (/is not a function/.test(e.message)) missing.push(type + '.' + name); }
    }
    return missing;`;
  t.deepEqual(await n8n(code), []);
});
