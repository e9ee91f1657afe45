import { QueryTypes, type Sequelize } from 'sequelize';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { identityModels } from './models.ts';
import { generatePassword, hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password.ts';
import { defaultName, normalizeEmail } from './rules.ts';

export const DEFAULT_ADMIN_EMAIL = 'admin@localhost';
export const FIRST_ENTITY_NAME = 'Default';

/** Two-key advisory lock taken while the first owner is created ('auth', 1). */
const LOCK_KEYS = [0x61757468, 1] as const;

export interface FirstOwnerResult {
  created: boolean;
  email?: string;
  /** set only when the password was generated; the caller prints it once */
  generatedPassword?: string;
}

/**
 * On an empty database, creates the first entity and its owner from ADMIN_EMAIL /
 * ADMIN_PASSWORD (a strong password is generated when none is set). Safe when several nodes
 * start at once: the check and the insert run under one transaction-level advisory lock, so
 * exactly one of them creates the owner.
 */
export async function ensureFirstOwner(db: Sequelize, settings: { email: string; password: string }): Promise<FirstOwnerResult> {
  const email = normalizeEmail(settings.email || DEFAULT_ADMIN_EMAIL);
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) throw new Error(`ADMIN_EMAIL '${settings.email}' is not an email address`);
  const given = settings.password;
  if (given && (given.length < PASSWORD_MIN_LENGTH || given.length > PASSWORD_MAX_LENGTH)) {
    throw new Error(`ADMIN_PASSWORD must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`);
  }
  const { User, Entity } = identityModels(db);
  return db.transaction(async (transaction) => {
    await db.query('SELECT pg_advisory_xact_lock(:a, :b)', { replacements: { a: LOCK_KEYS[0], b: LOCK_KEYS[1] }, transaction });
    // across entities on purpose: "is there anybody at all?"
    const [anyone] = await db.query('SELECT 1 FROM entities LIMIT 1', { type: QueryTypes.SELECT, transaction });
    if (anyone) return { created: false };
    const password = given || generatePassword();
    const entity = await Entity.create({ id: newId(), name: FIRST_ENTITY_NAME }, { transaction });
    await User.create(
      { id: newId(), entity_id: entity.id, email, name: defaultName(email), role: 'owner', status: 'active', password_hash: await hashPassword(password) },
      { transaction },
    );
    return { created: true, email, generatedPassword: given ? undefined : password };
  });
}

/** The log lines announcing a generated password: printed once, at creation, never again. */
export function generatedPasswordNotice(email: string, password: string): string {
  const rule = '='.repeat(72);
  return [
    rule,
    'FIRST START: created the owner account. Its password was generated and is shown ONLY NOW:',
    `  email:    ${email}`,
    `  password: ${password}`,
    'Log in and change it (PUT /api/v1/auth/password), or set ADMIN_PASSWORD before the first start.',
    rule,
  ].join('\n');
}
