import type { Transaction } from 'sequelize';
import { newId } from '../../../kernel/tenancy/ids.ts';
import { AUTH_ERR_EMAIL_TAKEN } from './errors.ts';
import type { IdentityModels, Role, UserModel } from './models.ts';
import { hashPassword } from './password.ts';
import { defaultName, normalizeEmail } from './rules.ts';

/**
 * Inserts a user into an entity. Emails are unique across the server (login is by email), so
 * a taken email is a 409 even when the other account belongs to another entity.
 */
export async function createUser(
  models: IdentityModels,
  values: { entity_id: string; email: string; password: string; role: Role; name?: string },
  transaction?: Transaction,
): Promise<UserModel> {
  const email = normalizeEmail(values.email);
  const password_hash = await hashPassword(values.password);
  try {
    const user = await models.User.create(
      { id: newId(), entity_id: values.entity_id, email, name: values.name ?? defaultName(email), role: values.role, status: 'active', password_hash },
      { transaction },
    );
    return user;
  } catch (err) {
    if (isUniqueViolation(err)) throw AUTH_ERR_EMAIL_TAKEN(`A user with the email '${email}' already exists.`, { field: 'email' });
    throw err;
  }
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { name?: string; original?: { code?: string }; parent?: { code?: string } };
  return e?.name === 'SequelizeUniqueConstraintError' || e?.original?.code === '23505' || e?.parent?.code === '23505';
}
