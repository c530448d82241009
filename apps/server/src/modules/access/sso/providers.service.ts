import {
  SSO_SECRET_FIELDS,
  type SsoProvider,
  type SsoProviderType,
  type SsoProviderWriteParsed,
  ssoProviderSchema,
  ssoProviderWriteSchema,
} from '@granary/contracts';
import { asc, eq, ne } from 'drizzle-orm';
import type { Db } from '../../../platform/db/index.ts';
import { InvalidError, NotFoundError } from '../../../platform/errors.ts';
import { openFor, registerSealedColumn, sealFor } from '../../../platform/secrets/index.ts';
import { auditOf } from '../audit.service.ts';
import type { AccessContext, RequestMeta } from '../context.ts';
import { ssoProviders } from './providers.schema.ts';

// Every write-only value of a provider is sealed at rest (issue 18): a JSON object field → sealed text.
registerSealedColumn({
  table: 'sso_providers',
  key: 'key',
  column: 'secrets',
  each: (value, f) =>
    value && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value as Record<string, unknown>).map(([k, v]) => [
            k,
            typeof v === 'string' ? f(v) : v,
          ]),
        )
      : value,
});

type Row = typeof ssoProviders.$inferSelect;

/** A provider's full settings with its secrets opened: for the sign-in flows only, never answered. */
export type ResolvedProvider = SsoProviderWriteParsed & {
  key: string;
  secrets: Record<string, string>;
};
export type ResolvedProviderOf<T extends SsoProviderType> = Extract<ResolvedProvider, { type: T }>;

function secretFieldsOf(type: string): readonly string[] {
  return (SSO_SECRET_FIELDS as Record<string, readonly string[]>)[type] ?? [];
}

function settingsOf(row: Row): SsoProviderWriteParsed {
  return ssoProviderWriteSchema.parse({
    ...row.config,
    key: row.key,
    type: row.type,
    name: row.name,
    enabled: row.enabled,
    isDefault: row.isDefault,
  });
}

function toAnswer(row: Row): SsoProvider {
  const settings = settingsOf(row) as Record<string, unknown>;
  const masks: Record<string, unknown> = {};
  for (const field of secretFieldsOf(row.type)) {
    masks[field] = '';
    masks[`${field}Set`] = Boolean(row.secrets[field]);
  }
  return ssoProviderSchema.parse({
    ...settings,
    ...masks,
    key: row.key,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  });
}

function resolve(db: Db, row: Row, withSecrets = true): ResolvedProvider {
  const secrets: Record<string, string> = {};
  if (withSecrets) for (const [k, v] of Object.entries(row.secrets)) if (v) secrets[k] = openFor(db, v);
  return { ...settingsOf(row), key: row.key, secrets } as ResolvedProvider;
}

export async function listProviders(ctx: AccessContext): Promise<SsoProvider[]> {
  const rows = await ctx.db.select().from(ssoProviders).orderBy(asc(ssoProviders.key));
  return rows.map(toAnswer);
}

export async function getProvider(ctx: AccessContext, key: string): Promise<SsoProvider> {
  const [row] = await ctx.db.select().from(ssoProviders).where(eq(ssoProviders.key, key));
  if (!row) throw new NotFoundError(`SSO provider '${key}' not found`);
  return toAnswer(row);
}

/** The provider with its secrets opened, or undefined. Disabled ones too: the caller decides. */
export async function loadProvider(db: Db, key: string): Promise<ResolvedProvider | undefined> {
  const [row] = await db.select().from(ssoProviders).where(eq(ssoProviders.key, key));
  return row ? resolve(db, row) : undefined;
}

/** Every enabled provider, in key order; its secrets opened unless `secrets: false` (login links need none). */
export async function enabledProviders(
  db: Db,
  opts: { secrets?: boolean } = {},
): Promise<ResolvedProvider[]> {
  const rows = await db
    .select()
    .from(ssoProviders)
    .where(eq(ssoProviders.enabled, true))
    .orderBy(asc(ssoProviders.key));
  return rows.map((row) => resolve(db, row, opts.secrets ?? true));
}

/**
 * `PUT ui/api/v1/sso/providers/{key}`: creates (created: true) or replaces the provider. Secrets absent
 * or `""` keep the stored value, `null` removes it. Marking one default clears the others.
 */
export async function putProvider(
  ctx: AccessContext,
  meta: RequestMeta,
  key: string,
  body: SsoProviderWriteParsed,
): Promise<{ created: boolean; provider: SsoProvider }> {
  if (body.key && body.key !== key)
    throw new InvalidError('The key in the body differs from the key in the path');
  const created = await ctx.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    const [existing] = await db.select().from(ssoProviders).where(eq(ssoProviders.key, key)).for('update');
    if (existing && existing.type !== body.type)
      throw new InvalidError(
        `The provider '${key}' is of type ${existing.type}: delete it to change its type`,
      );
    const secrets: Record<string, string> = {};
    const config: Record<string, unknown> = { ...body };
    for (const field of secretFieldsOf(body.type)) {
      const value = config[field] as string | null | undefined;
      delete config[field];
      const stored = existing?.secrets[field];
      if (value === null) continue;
      if (value === undefined || value === '') {
        if (stored) secrets[field] = stored;
      } else secrets[field] = sealFor(ctx.db, value);
    }
    for (const k of ['key', 'type', 'name', 'enabled', 'isDefault']) delete config[k];
    if (body.isDefault)
      await db.update(ssoProviders).set({ isDefault: false }).where(ne(ssoProviders.key, key));
    const values = {
      type: body.type,
      name: body.name,
      enabled: body.enabled,
      isDefault: body.isDefault,
      config,
      secrets,
      updatedAt: new Date(),
    };
    if (existing) await db.update(ssoProviders).set(values).where(eq(ssoProviders.key, key));
    else await db.insert(ssoProviders).values({ key, ...values });
    return !existing;
  });
  await ctx.audit.record({
    ...auditOf(meta),
    action: created ? 'sso.provider.create' : 'sso.provider.update',
    target: key,
    result: 'success',
    details: { type: body.type, enabled: body.enabled },
  });
  return { created, provider: await getProvider(ctx, key) };
}

export async function deleteProvider(ctx: AccessContext, meta: RequestMeta, key: string): Promise<void> {
  const rows = await ctx.db
    .delete(ssoProviders)
    .where(eq(ssoProviders.key, key))
    .returning({ key: ssoProviders.key });
  if (rows.length === 0) throw new NotFoundError(`SSO provider '${key}' not found`);
  await ctx.audit.record({ ...auditOf(meta), action: 'sso.provider.delete', target: key, result: 'success' });
}
