import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accessTokens, users } from '../access/access.schema.ts';

const at = (name: string) => timestamp(name, { withTimezone: true });

/**
 * Application integrations (issue 18): OAuth 2.0 clients an admin registered. The client secret is
 * never stored: only its SHA-256 (the secret is 256 random bits, so a fast hash cannot be brute
 * forced), compared in constant time. Nothing here is reversible, so nothing is sealed.
 */
export const oauthApplications = pgTable(
  'oauth_applications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    type: text('type').notNull(),
    description: text('description').notNull().default(''),
    callbackUrl: text('callback_url').notNull(),
    platformBaseUrl: text('platform_base_url').notNull(),
    clientId: text('client_id').notNull(),
    clientSecretHash: text('client_secret_hash').notNull(),
    createdBy: text('created_by'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('oauth_applications_name_lower_idx').on(sql`lower(${t.name})`),
    uniqueIndex('oauth_applications_client_id_idx').on(t.clientId),
  ],
);

/**
 * An authorization request waiting for the user's consent (the console's consent screen). Its id is
 * a random secret in the consent URL; the first signed-in user to open it owns it.
 */
export const oauthAuthorizationRequests = pgTable('oauth_authorization_requests', {
  id: text('id').primaryKey(),
  applicationId: uuid('application_id')
    .notNull()
    .references(() => oauthApplications.id, { onDelete: 'cascade' }),
  /** The authorize query as received (client_id, redirect_uri, scope, state, code_challenge…). */
  params: jsonb('params').$type<Record<string, string>>().notNull(),
  userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
  expiresAt: at('expires_at').notNull(),
});

/** Authorization codes, by SHA-256; single use (deleted when redeemed). */
export const oauthAuthorizationCodes = pgTable('oauth_authorization_codes', {
  codeHash: text('code_hash').primaryKey(),
  applicationId: uuid('application_id')
    .notNull()
    .references(() => oauthApplications.id, { onDelete: 'cascade' }),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  redirectUri: text('redirect_uri').notNull(),
  scope: text('scope').notNull(),
  codeChallenge: text('code_challenge').notNull(),
  codeChallengeMethod: text('code_challenge_method').notNull(),
  expiresAt: at('expires_at').notNull(),
});

/** A user integration: a user approved an application (spec 001 §3 userIntegrations). */
export const oauthGrants = pgTable(
  'oauth_grants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    applicationId: uuid('application_id')
      .notNull()
      .references(() => oauthApplications.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    lastUsedAt: at('last_used_at'),
  },
  (t) => [uniqueIndex('oauth_grants_app_user_idx').on(t.applicationId, t.userId)],
);

/** Refresh tokens, by SHA-256; rotated (each one is used once). */
export const oauthRefreshTokens = pgTable(
  'oauth_refresh_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    grantId: uuid('grant_id')
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    expiresAt: at('expires_at').notNull(),
  },
  (t) => [index('oauth_refresh_tokens_grant_idx').on(t.grantId)],
);

/** The Granary access tokens issued under a grant (revoked with it). */
export const oauthGrantTokens = pgTable(
  'oauth_grant_tokens',
  {
    tokenId: uuid('token_id')
      .primaryKey()
      .references(() => accessTokens.id, { onDelete: 'cascade' }),
    grantId: uuid('grant_id')
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    /** The access token's SHA-256, so RFC 7009 revocation can find it. */
    tokenHash: text('token_hash').notNull(),
  },
  (t) => [
    index('oauth_grant_tokens_grant_idx').on(t.grantId),
    uniqueIndex('oauth_grant_tokens_hash_idx').on(t.tokenHash),
  ],
);
