import test from 'ava';
import { generatePassword, hashPassword, needsRehash, SCRYPT_PARAMS, verifyPassword } from '../plugins/auth/lib/password.ts';
import { hashToken, newToken } from '../plugins/auth/lib/tokens.ts';
import { scryptSync } from 'node:crypto';

test('a hash verifies its password and no other; it carries its parameters and a fresh salt', async (t) => {
  const hash = await hashPassword('correct horse battery staple');
  t.regex(hash, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  t.true(await verifyPassword('correct horse battery staple', hash));
  t.false(await verifyPassword('correct horse battery stapl', hash));
  t.false(await verifyPassword('', hash));
  t.not(await hashPassword('correct horse battery staple'), hash, 'each hash has its own salt');
  t.false(needsRehash(hash));
});

test('a malformed or hostile stored hash never verifies', async (t) => {
  for (const stored of ['', 'plain', 'scrypt$1$8$1$c2FsdA$a2V5', 'scrypt$3$8$1$c2FsdA$a2V5', 'scrypt$1073741824$8$1$c2FsdA$a2V5', 'bcrypt$x', 'scrypt$32768$8$1$$']) {
    t.false(await verifyPassword('anything at all', stored), stored);
    t.true(needsRehash(stored));
  }
});

test('a hash made with older parameters still verifies and asks to be rehashed', async (t) => {
  const salt = Buffer.from('0123456789abcdef');
  const key = scryptSync('an older password', salt, 32, { N: 1024, r: 8, p: 1 });
  const old = ['scrypt', 1024, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
  t.true(await verifyPassword('an older password', old));
  t.true(needsRehash(old));
  t.is(SCRYPT_PARAMS.N, 32768);
});

test('Unicode passwords verify whatever their normalisation form', async (t) => {
  const hash = await hashPassword('caf\u00e9 au lait, s\u2019il vous pla\u00eet');
  t.true(await verifyPassword('cafe\u0301 au lait, s\u2019il vous pla\u00eet', hash));
});

test('generated passwords and tokens are long and random', (t) => {
  const passwords = new Set(Array.from({ length: 50 }, generatePassword));
  t.is(passwords.size, 50);
  t.true([...passwords].every((p) => /^[A-Za-z0-9_-]{24}$/.test(p)));
  const token = newToken();
  t.regex(token, /^[A-Za-z0-9_-]{43}$/);
  t.regex(hashToken(token), /^[0-9a-f]{64}$/);
  t.not(hashToken(token), hashToken(newToken()));
});
