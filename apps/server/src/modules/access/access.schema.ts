import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

/** Users. Names are case-insensitive, as in the peers: `Admin` and `admin` are one account. */
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    email: text('email'),
    passwordHash: text('password_hash'),
    admin: boolean('admin').notNull().default(false),
    disabled: boolean('disabled').notNull().default(false),
    realm: text('realm').notNull().default('internal'),
    /** Set by an admin, or by the policy's expiry: the next sign-in must change the password. */
    passwordExpired: boolean('password_expired').notNull().default(false),
    passwordChangedAt: timestamp('password_changed_at', { withTimezone: true }).notNull().defaultNow(),
    profileUpdatable: boolean('profile_updatable').notNull().default(true),
    /** Base32 TOTP secret once enrolled (RFC 6238); `mfaPendingSecret` while enrolling. */
    mfaSecret: text('mfa_secret'),
    mfaPendingSecret: text('mfa_pending_secret'),
    /** Last accepted TOTP time step, so one code cannot be replayed. */
    mfaLastStep: bigint('mfa_last_step', { mode: 'number' }),
    lastLoginAt: timestamp('last_login_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('users_name_lower_idx').on(sql`lower(${t.name})`)],
);

export const groups = pgTable(
  'groups',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    adminPrivileges: boolean('admin_privileges').notNull().default(false),
    autoJoin: boolean('auto_join').notNull().default(false),
    realm: text('realm').notNull().default('internal'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('groups_name_lower_idx').on(sql`lower(${t.name})`)],
);

export const groupMembers = pgTable(
  'group_members',
  {
    groupId: uuid('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.userId] }), index('group_members_user_idx').on(t.userId)],
);

/** A permission target: its `repo`/`build`/`releaseBundle` resources as the REST shape (jsonb). */
export const permissionTargets = pgTable(
  'permission_targets',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    resources: jsonb('resources').notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('permission_targets_name_lower_idx').on(sql`lower(${t.name})`)],
);

/** Access and identity tokens: only a SHA-256 of the token is stored. */
export const accessTokens = pgTable(
  'access_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    kind: text('kind').notNull().default('access'),
    scope: text('scope').notNull(),
    description: text('description'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('access_tokens_hash_idx').on(t.tokenHash),
    index('access_tokens_user_idx').on(t.userId),
  ],
);

/** Console sessions: only a SHA-256 of the cookie value is stored. */
export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** `active`, or `mfa` while the second factor is still owed (not a full session). */
    state: text('state').notNull(),
    rememberMe: boolean('remember_me').notNull().default(false),
    ip: text('ip'),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex('sessions_hash_idx').on(t.tokenHash), index('sessions_user_idx').on(t.userId)],
);

/** Security settings (anonymous access, MFA, password policy, mail), one JSON value per key. */
export const securitySettings = pgTable('security_settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Sign-in failures per account (`user:name`) and per address (`ip:addr`), for throttling. */
export const loginThrottle = pgTable('login_throttle', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull().default(0),
  /** How many lockouts in a row; each doubles the next lockout. */
  lockouts: integer('lockouts').notNull().default(0),
  lockedUntil: timestamp('locked_until', { withTimezone: true }),
  lastFailureAt: timestamp('last_failure_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Every security event: who, what, from where, result, request id. */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    actor: text('actor'),
    action: text('action').notNull(),
    target: text('target'),
    ip: text('ip'),
    result: text('result').notNull(),
    requestId: text('request_id'),
    details: jsonb('details'),
  },
  (t) => [index('audit_events_at_idx').on(t.at)],
);

/** Single-use password reset keys (SHA-256 of the key). */
export const passwordResetKeys = pgTable('password_reset_keys', {
  keyHash: text('key_hash').primaryKey(),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
  createdAt: createdAt(),
});

export const projects = pgTable('projects', {
  key: text('key').primaryKey(),
  displayName: text('display_name').notNull(),
  description: text('description').notNull().default(''),
  manageMembers: boolean('manage_members').notNull().default(true),
  manageResources: boolean('manage_resources').notNull().default(true),
  indexResources: boolean('index_resources').notNull().default(true),
  storageQuotaBytes: bigint('storage_quota_bytes', { mode: 'number' }),
  createdAt: createdAt(),
});

/** Project members: a user or a group with project roles. */
export const projectMembers = pgTable(
  'project_members',
  {
    projectKey: text('project_key')
      .notNull()
      .references(() => projects.key, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    /** Lower-cased user or group name. */
    name: text('name').notNull(),
    roles: jsonb('roles').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectKey, t.kind, t.name] })],
);

/** Invitations an admin mailed: single use, expiring; only a SHA-256 of the token is stored. */
export const invitations = pgTable(
  'invitations',
  {
    tokenHash: text('token_hash').primaryKey(),
    email: text('email').notNull(),
    invitedBy: text('invited_by'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index('invitations_email_idx').on(sql`lower(${t.email})`)],
);

/**
 * CLI registration sessions (5 minutes): a CLI opened one, a signed-in user confirms it, the CLI's next
 * poll receives a new access token and the row is deleted. Only a SHA-256 of the session id is stored;
 * the token is made at delivery, so it is never stored either.
 */
export const cliRegistrations = pgTable('cli_registrations', {
  sessionHash: text('session_hash').primaryKey(),
  code: text('code').notNull(),
  client: text('client'),
  userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
  confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  createdAt: createdAt(),
});
