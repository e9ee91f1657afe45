import { ROLES, type EntityAttributes, type UserAttributes } from './models.ts';

/** What the API shows of a user: never the password hash. */
export interface UserView {
  id: string;
  entity_id: string;
  email: string;
  name: string;
  role: UserAttributes['role'];
  status: UserAttributes['status'];
  created_at: string;
  updated_at: string;
  last_login_at: string | null;
}

export interface EntityView {
  id: string;
  name: string;
  created_at: string;
  updated_at: string;
}

export interface TokenView {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
}

const iso = (d: Date | string): string => new Date(d).toISOString();

export function userView(u: Pick<UserAttributes, keyof UserView>): UserView {
  return {
    id: u.id,
    entity_id: u.entity_id,
    email: u.email,
    name: u.name,
    role: u.role,
    status: u.status,
    created_at: iso(u.created_at),
    updated_at: iso(u.updated_at),
    last_login_at: u.last_login_at ? iso(u.last_login_at) : null,
  };
}

export function entityView(e: EntityAttributes): EntityView {
  return { id: e.id, name: e.name, created_at: iso(e.created_at), updated_at: iso(e.updated_at) };
}

// JSON schemas of the responses, for /api/openapi.json

const dateTime = { type: 'string', format: 'date-time' };

export const USER_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    entity_id: { type: 'string', format: 'uuid' },
    email: { type: 'string', format: 'email' },
    name: { type: 'string' },
    role: { type: 'string', enum: [...ROLES] },
    status: { type: 'string', enum: ['active', 'deactivated'] },
    created_at: dateTime,
    updated_at: dateTime,
    last_login_at: { type: ['string', 'null'], format: 'date-time' },
  },
  required: ['id', 'entity_id', 'email', 'name', 'role', 'status', 'created_at', 'updated_at', 'last_login_at'],
  additionalProperties: false,
};

export const ENTITY_SCHEMA = {
  type: 'object',
  properties: { id: { type: 'string', format: 'uuid' }, name: { type: 'string' }, created_at: dateTime, updated_at: dateTime },
  required: ['id', 'name', 'created_at', 'updated_at'],
  additionalProperties: false,
};

export const TOKEN_SCHEMA = {
  type: 'object',
  properties: {
    access_token: { type: 'string', description: 'Send as Authorization: Bearer <access_token>' },
    token_type: { type: 'string', enum: ['bearer'] },
    expires_in: { type: 'integer', description: 'Seconds until the token expires (TOKEN_TTL_SECONDS)' },
  },
  required: ['access_token', 'token_type', 'expires_in'],
};
