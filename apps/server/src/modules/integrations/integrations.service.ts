import { randomUUID } from 'node:crypto';
import {
  type ConnectedIntegration,
  GIT_VENDOR_DISPLAY_NAMES,
  GIT_VENDOR_NAMES,
  type GitIntegration,
  type GitVendorName,
  gitIntegrationFormSchema,
  INTEGRATION_MESSAGES,
  type IntegrationGroup,
  type IntegrationProduct,
  type IntegrationRepositoryScan,
  type RepositoryFinding,
  type RepositoryScan,
  type TestConnectionResult,
  type VcsRepository,
  VENDOR_IDS,
  type VendorItem,
  vendorNameOf,
} from '@granary/contracts';
import { and, eq, inArray, notInArray } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Db } from '../../platform/db/index.ts';
import { ConflictError, ForbiddenError, InvalidError, NotFoundError } from '../../platform/errors.ts';
import { enqueueJob, type Jobs } from '../../platform/jobs/index.ts';
import type { OutboundClient } from '../../platform/outbound/index.ts';
import { registerSealedColumn, type Secrets } from '../../platform/secrets/index.ts';
import type { ComponentQuery, Finding } from '../scanning/model.ts';
import { gitIntegrationRepositories, gitIntegrations } from './integrations.schema.ts';
import { isManifest, parseManifest } from './manifests.ts';
import { type VendorRepository, vendorApi } from './vendors.ts';

export const SCAN_QUEUE = 'integrations.scan-repository';

// The vendor token is sealed at rest; the secrets platform re-encrypts it on master key rotation.
registerSealedColumn({ table: 'git_integrations', key: 'key', column: 'token_sealed' });

export interface IntegrationsContext {
  db: Db;
  secrets: Secrets;
  outbound: OutboundClient;
  log: Logger;
  now: () => Date;
  /** The `gitRepoScanning` feature flag, read per request (another node may have changed it). */
  gitEnabled: () => Promise<boolean>;
  /** The advisory database's matcher (modules/scanning). */
  match: (queries: ComponentQuery[]) => Promise<Finding[][]>;
}

type FormInput = z.input<typeof gitIntegrationFormSchema>;
type Row = typeof gitIntegrations.$inferSelect;

const last4 = (token: string) => (token.length <= 4 ? '' : token.slice(-4));

export function toIntegration(row: Row): GitIntegration {
  return {
    key: row.key,
    name: row.name,
    url: row.url,
    vendorName: vendorNameOf(row.vendor) ?? 'github',
    userName: row.userName,
    products: row.products as IntegrationProduct[],
    tokenLast4: row.tokenLast4,
    createdOn: row.createdAt.toISOString(),
    updatedOn: row.updatedAt.toISOString(),
  };
}

/** §6: git integrations are for administrators (the route checks) with the feature on (checked here). */
export async function requireGitFeature(ctx: IntegrationsContext): Promise<void> {
  if (!(await ctx.gitEnabled()))
    throw new ForbiddenError('Git integrations are turned off (feature flag gitRepoScanning)');
}

function parseForm(body: unknown) {
  const parsed = gitIntegrationFormSchema.safeParse(body);
  if (!parsed.success) throw new InvalidError(parsed.error.issues.map((i) => i.message).join('; '));
  const vendor = vendorNameOf(parsed.data.vendorName);
  if (!vendor) throw new InvalidError('Unknown vendor');
  return { ...parsed.data, vendor, url: parsed.data.url.replace(/\/+$/, '') };
}

async function getRow(ctx: IntegrationsContext, key: string): Promise<Row> {
  const [row] = await ctx.db.select().from(gitIntegrations).where(eq(gitIntegrations.key, key));
  if (!row) throw new NotFoundError(`Integration '${key}' not found`);
  return row;
}

const connOf = (ctx: IntegrationsContext, row: Row) => ({
  vendor: vendorNameOf(row.vendor) as GitVendorName,
  url: row.url,
  userName: row.userName,
  // A value still in the clear (never written so, but a restore may hold one) is read as is until sealed.
  token: ctx.secrets.isSealed(row.tokenSealed) ? ctx.secrets.openSecret(row.tokenSealed) : row.tokenSealed,
});

export async function listIntegrations(ctx: IntegrationsContext): Promise<GitIntegration[]> {
  const rows = await ctx.db.select().from(gitIntegrations).orderBy(gitIntegrations.name);
  return rows.map(toIntegration);
}

/** `GET integrations/git`: one item per vendor with its instances and configured products (spec 001 §3). */
export async function vendorItems(ctx: IntegrationsContext): Promise<VendorItem[]> {
  const all = await listIntegrations(ctx);
  return GIT_VENDOR_NAMES.map((name) => {
    const integrations = all.filter((i) => i.vendorName === name);
    const products = [...new Set(integrations.flatMap((i) => i.products))];
    return {
      id: VENDOR_IDS[name],
      name,
      displayName: GIT_VENDOR_DISPLAY_NAMES[name],
      integrations,
      configured: products.length > 0,
      configuredServices: products.map((serviceName) => {
        const connections = integrations.filter((i) => i.products.includes(serviceName)).length;
        return { serviceName, connections, connected: connections > 0 };
      }),
      products,
    };
  });
}

/** `GET integrations`: the groups; git's items only for an admin with the feature on (§4, §6). */
export async function listGroups(ctx: IntegrationsContext, admin: boolean): Promise<IntegrationGroup[]> {
  const available = admin && (await ctx.gitEnabled());
  return [
    { type: 'git', name: 'Git', available, items: available ? await vendorItems(ctx) : [] },
    { type: 'ide', name: 'IDE', available: true, items: [] },
    { type: 'cli', name: 'CLI', available: true, items: [] },
  ];
}

/**
 * `POST integrations/testConnection`: a real call to the vendor's API with the form's token (or,
 * editing with the token left empty, the stored one).
 */
export async function testConnection(ctx: IntegrationsContext, body: unknown): Promise<TestConnectionResult> {
  const form = parseForm(body);
  let token = form.token;
  if (!token && form.integrationKey) token = connOf(ctx, await getRow(ctx, form.integrationKey)).token;
  if (!token) throw new InvalidError(INTEGRATION_MESSAGES.tokenRequired);
  return vendorApi(ctx.outbound, {
    vendor: form.vendor,
    url: form.url,
    userName: form.userName,
    token,
  }).testConnection();
}

export async function createIntegration(ctx: IntegrationsContext, body: FormInput): Promise<string> {
  const form = parseForm(body);
  if (!form.token) throw new InvalidError(INTEGRATION_MESSAGES.tokenRequired);
  const key = form.integrationKey?.trim() || `${form.vendor}-${randomUUID()}`;
  const now = ctx.now();
  const inserted = await ctx.db
    .insert(gitIntegrations)
    .values({
      key,
      name: form.integrationName,
      vendor: VENDOR_IDS[form.vendor],
      url: form.url,
      userName: form.userName,
      tokenSealed: ctx.secrets.sealSecret(form.token),
      tokenLast4: last4(form.token),
      products: form.products ?? [],
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning({ key: gitIntegrations.key });
  if (inserted.length === 0)
    throw new ConflictError(
      `${INTEGRATION_MESSAGES.createFailed}: the name or key '${form.integrationName}' is taken`,
    );
  ctx.log.info({ key, vendor: form.vendor }, 'git integration created');
  return key;
}

/** `PUT integration/{key}`: the form; an empty token keeps the stored one; `products` selects the services. */
export async function updateIntegration(
  ctx: IntegrationsContext,
  key: string,
  body: FormInput,
): Promise<GitIntegration> {
  const row = await getRow(ctx, key);
  const form = parseForm({ ...body, integrationKey: key });
  if (VENDOR_IDS[form.vendor] !== row.vendor)
    throw new InvalidError('The vendor of an integration cannot change');
  const [updated] = await ctx.db
    .update(gitIntegrations)
    .set({
      name: form.integrationName,
      url: form.url,
      userName: form.userName,
      ...(form.token
        ? { tokenSealed: ctx.secrets.sealSecret(form.token), tokenLast4: last4(form.token) }
        : {}),
      ...(form.products ? { products: form.products } : {}),
      updatedAt: ctx.now(),
    })
    .where(eq(gitIntegrations.key, key))
    .returning()
    .catch((err: unknown) => {
      if (String((err as { code?: string }).code ?? (err as Error).message).match(/23505|unique/i))
        throw new ConflictError(
          `${INTEGRATION_MESSAGES.updateFailed}: the name '${form.integrationName}' is taken`,
        );
      throw err;
    });
  ctx.log.info({ key }, 'git integration updated');
  return toIntegration(updated!);
}

export async function deleteIntegration(ctx: IntegrationsContext, key: string): Promise<void> {
  const gone = await ctx.db.delete(gitIntegrations).where(eq(gitIntegrations.key, key)).returning();
  if (gone.length === 0) throw new NotFoundError(`Integration '${key}' not found`);
  ctx.log.info({ key }, 'git integration deleted');
}

/** The connected list; with `xray`, only the integrations serving it, each with `integration_id`. */
export async function connectedIntegrations(
  ctx: IntegrationsContext,
  xray: boolean,
): Promise<ConnectedIntegration[]> {
  const all = await listIntegrations(ctx);
  return all
    .filter((i) => !xray || i.products.includes('xray'))
    .map((i) => ({
      key: i.key,
      vendorName: i.vendorName,
      products: i.products,
      ...(i.products.includes('xray') ? { integration_id: i.key } : {}),
    }));
}

async function requireXray(ctx: IntegrationsContext, key: string): Promise<Row> {
  const row = await getRow(ctx, key);
  if (!(row.products as string[]).includes('xray'))
    throw new InvalidError('Manage Repositories needs the xray product on this integration');
  return row;
}

/** `GET integration/{key}/repositories`: the vendor's, through its API; `selected` marks the scanned ones. */
export async function listRepositories(ctx: IntegrationsContext, key: string): Promise<VcsRepository[]> {
  const row = await requireXray(ctx, key);
  const repos = await vendorApi(ctx.outbound, connOf(ctx, row)).listRepositories();
  const selected = new Set(
    (
      await ctx.db
        .select({ fullName: gitIntegrationRepositories.fullName })
        .from(gitIntegrationRepositories)
        .where(eq(gitIntegrationRepositories.integrationKey, key))
    ).map((r) => r.fullName),
  );
  return repos.map((r) => ({ ...r, selected: selected.has(r.fullName) }));
}

/** `PUT integration/{key}/repositories`: the chosen set; newly chosen ones are scanned at once (a job each). */
export async function selectRepositories(
  ctx: IntegrationsContext,
  key: string,
  names: string[],
): Promise<VcsRepository[]> {
  const row = await requireXray(ctx, key);
  const repos = await vendorApi(ctx.outbound, connOf(ctx, row)).listRepositories();
  const byName = new Map(repos.map((r) => [r.fullName, r]));
  const unknown = names.filter((n) => !byName.has(n));
  if (unknown.length) throw new InvalidError(`Not a repository of this integration: ${unknown.join(', ')}`);
  const wanted = [...new Set(names)];
  await ctx.db.transaction(async (tx) => {
    await tx
      .delete(gitIntegrationRepositories)
      .where(
        wanted.length
          ? and(
              eq(gitIntegrationRepositories.integrationKey, key),
              notInArray(gitIntegrationRepositories.fullName, wanted),
            )
          : eq(gitIntegrationRepositories.integrationKey, key),
      );
    if (wanted.length === 0) return;
    const added = await tx
      .insert(gitIntegrationRepositories)
      .values(
        wanted.map((fullName) => ({
          integrationKey: key,
          fullName,
          defaultBranch: byName.get(fullName)!.defaultBranch,
          status: 'queued',
          updatedAt: ctx.now(),
        })),
      )
      .onConflictDoNothing()
      .returning({ fullName: gitIntegrationRepositories.fullName });
    for (const a of added)
      await enqueueJob(tx, SCAN_QUEUE, { key, fullName: a.fullName }, { dedupeKey: `${key} ${a.fullName}` });
  });
  return repos.map((r) => ({ ...r, selected: wanted.includes(r.fullName) }));
}

/** `POST integration/{key}/scan`: queues a scan of the selected repositories (or of those named). */
export async function queueScans(ctx: IntegrationsContext, key: string, names?: string[]): Promise<number> {
  await requireXray(ctx, key);
  let queued = 0;
  await ctx.db.transaction(async (tx) => {
    const rows = await tx
      .update(gitIntegrationRepositories)
      .set({ status: 'queued', updatedAt: ctx.now() })
      .where(
        names?.length
          ? and(
              eq(gitIntegrationRepositories.integrationKey, key),
              inArray(gitIntegrationRepositories.fullName, names),
            )
          : eq(gitIntegrationRepositories.integrationKey, key),
      )
      .returning({ fullName: gitIntegrationRepositories.fullName });
    for (const r of rows)
      if (
        await enqueueJob(tx, SCAN_QUEUE, { key, fullName: r.fullName }, { dedupeKey: `${key} ${r.fullName}` })
      )
        queued++;
  });
  return queued;
}

export async function listScans(ctx: IntegrationsContext, key: string): Promise<RepositoryScan[]> {
  await getRow(ctx, key);
  const rows = await ctx.db
    .select()
    .from(gitIntegrationRepositories)
    .where(eq(gitIntegrationRepositories.integrationKey, key))
    .orderBy(gitIntegrationRepositories.fullName);
  return rows.map(toScan);
}

function toScan(r: typeof gitIntegrationRepositories.$inferSelect): RepositoryScan {
  const result = (r.result ?? {}) as Partial<RepositoryScan>;
  return {
    repository: r.fullName,
    status: r.status as RepositoryScan['status'],
    scannedAt: r.scannedAt?.toISOString() ?? null,
    error: r.error,
    manifests: result.manifests ?? [],
    components: result.components ?? 0,
    findings: result.findings ?? [],
    licenses: result.licenses ?? [],
  };
}

/**
 * `GET integrations/scans` (issue 18: shown on the integration and in Security & Compliance): the latest scan of
 * every selected repository of every integration, with the integration's key, name and vendor.
 */
export async function listAllScans(ctx: IntegrationsContext): Promise<IntegrationRepositoryScan[]> {
  const rows = await ctx.db
    .select({ repo: gitIntegrationRepositories, name: gitIntegrations.name, vendor: gitIntegrations.vendor })
    .from(gitIntegrationRepositories)
    .innerJoin(gitIntegrations, eq(gitIntegrations.key, gitIntegrationRepositories.integrationKey))
    .orderBy(gitIntegrations.name, gitIntegrationRepositories.fullName);
  return rows.map((r) => ({
    ...toScan(r.repo),
    integrationKey: r.repo.integrationKey,
    integrationName: r.name,
    vendorName: vendorNameOf(r.vendor) ?? 'github',
  }));
}

/**
 * The scan job: reads the repository's root manifests through the vendor's file API, matches their
 * pinned dependencies against the advisory database and stores the findings and licences.
 */
export async function scanRepository(ctx: IntegrationsContext, key: string, fullName: string): Promise<void> {
  const [row] = await ctx.db.select().from(gitIntegrations).where(eq(gitIntegrations.key, key));
  if (!row) return; // deleted since
  const where = and(
    eq(gitIntegrationRepositories.integrationKey, key),
    eq(gitIntegrationRepositories.fullName, fullName),
  );
  const [selected] = await ctx.db.select().from(gitIntegrationRepositories).where(where);
  if (!selected) return; // deselected since
  await ctx.db
    .update(gitIntegrationRepositories)
    .set({ status: 'running', updatedAt: ctx.now() })
    .where(where);
  try {
    const api = vendorApi(ctx.outbound, connOf(ctx, row));
    const [owner = '', ...rest] = fullName.split('/');
    const repo: VendorRepository = {
      fullName,
      name: rest.join('/'),
      owner,
      defaultBranch: selected.defaultBranch,
      private: true,
      url: '',
    };
    const manifests = (await api.listRootFiles(repo)).filter(isManifest).sort();
    const components = [];
    for (const m of manifests) {
      const text = await api.readFile(repo, m);
      if (text !== null) components.push(...parseManifest(m, text));
    }
    const matches = components.length
      ? await ctx.match(components.map((c) => ({ ecosystem: c.ecosystem, name: c.name, version: c.version })))
      : [];
    const findings: RepositoryFinding[] = [];
    components.forEach((c, i) => {
      for (const f of matches[i] ?? [])
        findings.push({
          manifest: c.manifest,
          ecosystem: c.ecosystem,
          package: c.name,
          version: c.version,
          advisoryId: f.advisoryId,
          severity: f.severity,
          summary: f.summary,
          fixedVersions: f.fixedVersions,
        });
    });
    const licenses = components
      .filter((c) => c.license)
      .map((c) => ({ package: c.name, version: c.version, license: c.license! }));
    await ctx.db
      .update(gitIntegrationRepositories)
      .set({
        status: 'done',
        error: null,
        scannedAt: ctx.now(),
        updatedAt: ctx.now(),
        result: { manifests, components: components.length, findings, licenses },
      })
      .where(where);
  } catch (err) {
    await ctx.db
      .update(gitIntegrationRepositories)
      .set({ status: 'failed', error: (err as Error).message, scannedAt: ctx.now(), updatedAt: ctx.now() })
      .where(where);
    ctx.log.warn({ key, repository: fullName, err: (err as Error).message }, 'repository scan failed');
  }
}

export function registerScanQueue(jobs: Jobs, ctx: IntegrationsContext): void {
  jobs.queue<{ key: string; fullName: string }>({
    name: SCAN_QUEUE,
    maxAttempts: 3,
    handler: (payload) => scanRepository(ctx, payload.key, payload.fullName),
  });
}
