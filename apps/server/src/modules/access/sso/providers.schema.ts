import { boolean, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Single sign-on (issue 20). One row per provider: its type's settings in `config` (the contracts'
 * `ssoProviderSchema` without the secrets) and its write-only secrets in `secrets`, a JSON object of
 * field name → sealed value (platform/secrets; registered in providers.service.ts).
 */
export const ssoProviders = pgTable('sso_providers', {
  key: text('key').primaryKey(),
  /** oidc | oauth2 | saml | ldap | http */
  type: text('type').notNull(),
  name: text('name').notNull(),
  enabled: boolean('enabled').notNull().default(true),
  isDefault: boolean('is_default').notNull().default(false),
  config: jsonb('config').$type<Record<string, unknown>>().notNull(),
  secrets: jsonb('secrets').$type<Record<string, string>>().notNull().default({}),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Used authorization codes, SAML assertion ids and login states, remembered until they expire so a
 * second use is refused on every node (the primary key makes the first insert win).
 */
export const ssoReplay = pgTable(
  'sso_replay',
  {
    id: text('id').primaryKey(),
    providerKey: text('provider_key').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('sso_replay_expires_idx').on(t.expiresAt)],
);

/**
 * A sign-in in progress (state, nonce, PKCE verifier, where to land), shared by every node: the row
 * is keyed by the SHA-256 of the `state` value, taken once by the callback, and lives a few minutes.
 * The browser holds the state in a cookie too, so a callback from another browser is refused.
 */
export const ssoLoginStates = pgTable(
  'sso_login_states',
  {
    stateHash: text('state_hash').primaryKey(),
    providerKey: text('provider_key').notNull(),
    /** login | test | cli */
    mode: text('mode').notNull(),
    /** nonce, codeVerifier, redirectTo, registrationToken, SAML request id… (no secrets of the server) */
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('sso_login_states_expires_idx').on(t.expiresAt)],
);
