import {
  ISSUE_SEVERITIES,
  ignoreViolationRequestSchema,
  type ScanStatus,
  SPECIAL_PACKAGE_TYPES,
  type Violation,
  type ViolationsQuery,
  violationsQuerySchema,
  type XrayIgnoreRule,
  type XrayPolicy,
  type XrayWatch,
  xrayIgnoreRuleSchema,
  xrayPolicySchema,
  type xrayViolationsAnswerSchema,
  xrayViolationsRequestSchema,
  xrayWatchSchema,
} from '@granary/contracts';
import { and, asc, eq, gt, inArray, or, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Db } from '../../../platform/db/index.ts';
import { ConflictError, ForbiddenError, InvalidError, NotFoundError } from '../../../platform/errors.ts';
import { type DomainEvent, publish } from '../../../platform/events/index.ts';
import type { ScanRecord } from '../model.ts';
import { evaluateScan, type ViolationCandidate } from './evaluate.ts';
import { scanIgnoreRules, scanPolicies, scanViolations, scanWatches } from './policies.schema.ts';

/** Where a stored file stands in the scan pipeline (the scans part answers; null: not a file it scans). */
export type ScanStateLookup = (
  repositoryId: string,
  path: string,
) => Promise<{ repoKey: string; status: ScanStatus } | null>;

export interface PoliciesContext {
  db: Db;
  /** the server's clock (epoch ms): ignore rules expire by it */
  now: () => number;
  log: Logger;
}

type ViolationRow = typeof scanViolations.$inferSelect;
type IgnoreRow = typeof scanIgnoreRules.$inferSelect;

/** Package types whose version is a folder (a jar and its pom; an image tag's files; a wheel and its sdist). */
const FOLDER_TYPES = new Set<string>([...SPECIAL_PACKAGE_TYPES, 'pypi', 'sbt']);

const folderOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/') + 1) : '');

/** What a violation of a file at `path` is checked against on download (see `scan_violations.scope`). */
export function scopeOf(packageType: string, path: string): string {
  return FOLDER_TYPES.has(packageType.toLowerCase()) ? folderOf(path) : path;
}

/** The scopes a download of `path` falls under: the file itself, its folder, the file it is a sidecar of (`x.tgz.sha1`). */
export function scopesOfDownload(path: string): string[] {
  const out = new Set([path, folderOf(path)]);
  const folder = folderOf(path);
  const name = path.slice(folder.length);
  for (let i = name.lastIndexOf('.'); i > 0; i = name.lastIndexOf('.', i - 1))
    out.add(folder + name.slice(0, i));
  return [...out];
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
const severityIndex = (s: string) => {
  const i = (ISSUE_SEVERITIES as readonly string[]).indexOf(s);
  return i < 0 ? ISSUE_SEVERITIES.length : i;
};
const lower = (list: string[] | undefined) => (list ?? []).map((x) => x.toLowerCase());
const keyOf = (v: { watch: string; policy: string; rule: string; issueId: string; componentPurl: string }) =>
  `${v.watch}\u0000${v.policy}\u0000${v.rule}\u0000${v.issueId}\u0000${v.componentPurl}`;

/** The ignore rule (in force) covers a violation: it gives at least one filter, and every filter given matches. */
export function ignoreRuleCovers(rule: XrayIgnoreRule['ignore_filters'], v: ViolationRow): boolean {
  const checks: boolean[] = [];
  const when = (list: unknown[] | undefined, ok: () => boolean) => {
    if (list && list.length > 0) checks.push(ok());
  };
  if (rule.violation_id) checks.push(rule.violation_id === v.id);
  const issue = v.issueId.toLowerCase();
  when(rule.vulnerabilities, () => v.type === 'security' && lower(rule.vulnerabilities).includes(issue));
  when(rule.cves, () => {
    const cves = lower(rule.cves);
    return cves.includes(issue) || v.cves.some((c) => cves.includes(c.toLowerCase()));
  });
  when(rule.licenses, () => v.type === 'license' && lower(rule.licenses).includes(issue));
  when(rule.watches, () => lower(rule.watches).includes(v.watch.toLowerCase()));
  when(rule.policies, () => lower(rule.policies).includes(v.policy.toLowerCase()));
  when(rule.repositories, () => lower(rule.repositories).includes(v.repoKey.toLowerCase()));
  when(rule.component, () =>
    (rule.component ?? []).some(
      (c) =>
        (c.name.toLowerCase() === v.componentName.toLowerCase() || c.name === v.componentPurl) &&
        (!c.version || c.version === v.componentVersion),
    ),
  );
  when(rule.artifact, () =>
    (rule.artifact ?? []).some(
      (a) =>
        (!a.path || [v.path, `${v.repoKey}/${v.path}`].includes(a.path.replace(/^\/+/, ''))) &&
        (a.name.toLowerCase() === v.componentName.toLowerCase() || v.path.includes(a.name)) &&
        (!a.version || a.version === v.componentVersion),
    ),
  );
  return checks.length > 0 && checks.every(Boolean);
}

/** The message a blocked download answers with (every client's own error shape carries it). */
export function blockedMessage(
  v: Pick<
    ViolationRow,
    'repoKey' | 'path' | 'policy' | 'watch' | 'issueId' | 'type' | 'componentName' | 'componentVersion'
  >,
): string {
  const what = v.type === 'license' ? `licence ${v.issueId}` : v.issueId;
  return `${v.repoKey}/${v.path} is blocked by policy '${v.policy}' of watch '${v.watch}' (${what} in ${v.componentName} ${v.componentVersion}); ask an administrator for an ignore rule`;
}

interface BlockingConfig {
  at: number;
  /** the active watches, and every policy by its lower-case name (what a scan is evaluated against) */
  watches: XrayWatch[];
  policies: Map<string, XrayPolicy>;
  /** some active watch applies a rule that blocks downloads */
  any: boolean;
  /** watches whose policies block unscanned downloads: their repository keys (lower case), or '*' */
  unscanned: { watch: string; policy: string; repos: Set<string> }[];
}

/**
 * Policies, watches, violations and ignore rules (issue 16 "Policies and watches", "Blocking"): Xray's
 * JSON stored as given; each scan evaluated against the watches covering its repository; downloads
 * refused while a blocking violation stands that no ignore rule in force covers.
 */
export class PoliciesService {
  private config: BlockingConfig | null = null;
  private scanStates: ScanStateLookup | null = null;
  private scanBeforeServing: ((repositoryId: string, path: string) => Promise<void>) | null = null;

  constructor(private readonly ctx: PoliciesContext) {}

  /** The scans part tells where a file stands (for `block_download.unscanned`). */
  useScanStates(lookup: ScanStateLookup): void {
    this.scanStates = lookup;
  }

  /**
   * The scans part scans a file in the download's request when `block_download.unscanned` would
   * otherwise refuse it (a proxied file just cached): the download gets its verdict, not a retry.
   */
  useScanBeforeServing(scan: (repositoryId: string, path: string) => Promise<void>): void {
    this.scanBeforeServing = scan;
  }

  private changed(): void {
    this.config = null;
  }

  // -------------------------------------------------------------------------------------------
  // Policies

  async listPolicies(): Promise<XrayPolicy[]> {
    const rows = await this.ctx.db.select().from(scanPolicies).orderBy(asc(scanPolicies.name));
    return rows.map(policyOf);
  }

  async getPolicy(name: string): Promise<XrayPolicy> {
    const [row] = await this.ctx.db
      .select()
      .from(scanPolicies)
      .where(sql`lower(${scanPolicies.name}) = ${name.toLowerCase()}`);
    if (!row) throw new NotFoundError(`Policy '${name}' not found`);
    return policyOf(row);
  }

  async savePolicy(input: unknown, author: string | null, existing?: string): Promise<XrayPolicy> {
    const policy = parse(xrayPolicySchema, input);
    for (const rule of policy.rules) checkRule(policy.type, rule);
    const body = { ...(input as Record<string, unknown>), name: policy.name, type: policy.type };
    const now = new Date(this.ctx.now());
    if (existing === undefined) {
      const taken = await this.ctx.db
        .select({ name: scanPolicies.name })
        .from(scanPolicies)
        .where(sql`lower(${scanPolicies.name}) = ${policy.name.toLowerCase()}`);
      if (taken.length > 0) throw new ConflictError(`Policy '${policy.name}' already exists`);
      await this.ctx.db.insert(scanPolicies).values({
        name: policy.name,
        type: policy.type,
        body,
        author,
        createdAt: now,
        modifiedAt: now,
      });
    } else {
      const current = await this.getPolicy(existing);
      if (current.name.toLowerCase() !== policy.name.toLowerCase())
        throw new InvalidError(`The policy's name cannot change (it is '${current.name}')`);
      await this.ctx.db
        .update(scanPolicies)
        .set({ type: policy.type, body, modifiedAt: now })
        .where(eq(scanPolicies.name, current.name));
    }
    this.changed();
    return this.getPolicy(policy.name);
  }

  async deletePolicy(name: string): Promise<void> {
    const policy = await this.getPolicy(name);
    const users = (await this.listWatches()).filter((w) =>
      w.assigned_policies.some((p) => p.name.toLowerCase() === policy.name.toLowerCase()),
    );
    if (users.length > 0)
      throw new ConflictError(
        `Policy '${policy.name}' is assigned to watch ${users.map((w) => `'${w.general_data.name}'`).join(', ')}; remove it there first`,
      );
    await this.ctx.db.transaction(async (tx) => {
      await tx.delete(scanPolicies).where(eq(scanPolicies.name, policy.name));
      await tx.delete(scanViolations).where(eq(scanViolations.policy, policy.name));
    });
    this.changed();
  }

  // -------------------------------------------------------------------------------------------
  // Watches

  async listWatches(): Promise<XrayWatch[]> {
    const rows = await this.ctx.db.select().from(scanWatches).orderBy(asc(scanWatches.name));
    return rows.map(watchOf);
  }

  async getWatch(name: string): Promise<XrayWatch> {
    const [row] = await this.ctx.db
      .select()
      .from(scanWatches)
      .where(sql`lower(${scanWatches.name}) = ${name.toLowerCase()}`);
    if (!row) throw new NotFoundError(`Watch '${name}' not found`);
    return watchOf(row);
  }

  async saveWatch(input: unknown, existing?: string): Promise<XrayWatch> {
    const watch = parse(xrayWatchSchema, input);
    const policies = new Map((await this.listPolicies()).map((p) => [p.name.toLowerCase(), p]));
    for (const assigned of watch.assigned_policies) {
      const policy = policies.get(assigned.name.toLowerCase());
      if (!policy) throw new InvalidError(`Policy '${assigned.name}' does not exist`);
      if (policy.type !== assigned.type)
        throw new InvalidError(`Policy '${assigned.name}' is a ${policy.type} policy, not ${assigned.type}`);
    }
    for (const r of watch.project_resources.resources)
      if (r.type === 'repository' && !r.name) throw new InvalidError('A repository resource needs its name');
    const raw = input as Record<string, unknown>;
    const body = {
      ...raw,
      general_data: { ...(raw.general_data as object), ...watch.general_data },
      project_resources: watch.project_resources,
      assigned_policies: watch.assigned_policies,
    };
    // Resources keep what the client sent beside the fields read here (filters, repo_type…).
    (body.project_resources as { resources: unknown[] }).resources = (
      (raw.project_resources as { resources?: unknown[] } | undefined)?.resources ?? []
    ).map((r) => r);
    const name = watch.general_data.name;
    const now = new Date(this.ctx.now());
    if (existing === undefined) {
      const taken = await this.ctx.db
        .select({ name: scanWatches.name })
        .from(scanWatches)
        .where(sql`lower(${scanWatches.name}) = ${name.toLowerCase()}`);
      if (taken.length > 0) throw new ConflictError(`Watch '${name}' already exists`);
      await this.ctx.db
        .insert(scanWatches)
        .values({ name, active: watch.general_data.active, body, createdAt: now, modifiedAt: now });
    } else {
      const current = await this.getWatch(existing);
      if (current.general_data.name.toLowerCase() !== name.toLowerCase())
        throw new InvalidError(`The watch's name cannot change (it is '${current.general_data.name}')`);
      await this.ctx.db
        .update(scanWatches)
        .set({ active: watch.general_data.active, body, modifiedAt: now })
        .where(eq(scanWatches.name, current.general_data.name));
    }
    this.changed();
    return this.getWatch(name);
  }

  async deleteWatch(name: string): Promise<void> {
    const watch = await this.getWatch(name);
    await this.ctx.db.transaction(async (tx) => {
      await tx.delete(scanWatches).where(eq(scanWatches.name, watch.general_data.name));
      await tx.delete(scanViolations).where(eq(scanViolations.watch, watch.general_data.name));
    });
    this.changed();
  }

  /** Watches whose violations name the issue (console: watches by issue). */
  async watchesByIssue(issueId: string): Promise<string[]> {
    const rows = await this.ctx.db
      .selectDistinct({ watch: scanViolations.watch })
      .from(scanViolations)
      .where(sql`lower(${scanViolations.issueId}) = ${issueId.toLowerCase()}`)
      .orderBy(asc(scanViolations.watch));
    return rows.map((r) => r.watch);
  }

  // -------------------------------------------------------------------------------------------
  // Ignore rules

  async createIgnoreRule(input: unknown, author: string | null): Promise<string> {
    const rule = parse(xrayIgnoreRuleSchema, input);
    const expires = Date.parse(rule.expiration_date);
    if (Number.isNaN(expires))
      throw new InvalidError(`expiration_date '${rule.expiration_date}' is not a date`);
    if (expires <= this.ctx.now()) throw new InvalidError('expiration_date must be in the future');
    const f = rule.ignore_filters;
    const any =
      !!f.violation_id ||
      [
        f.vulnerabilities,
        f.cves,
        f.licenses,
        f.watches,
        f.policies,
        f.component,
        f.artifact,
        f.repositories,
      ].some((l) => (l?.length ?? 0) > 0);
    if (!any) throw new InvalidError('An ignore rule needs at least one filter (ignore_filters)');
    if (f.violation_id) {
      const [found] = await this.ctx.db
        .select({ id: scanViolations.id })
        .from(scanViolations)
        .where(eq(scanViolations.id, uuidOr(f.violation_id)));
      if (!found) throw new InvalidError(`Violation '${f.violation_id}' does not exist`);
    }
    const [row] = await this.ctx.db
      .insert(scanIgnoreRules)
      .values({
        notes: rule.notes,
        expiresAt: new Date(expires),
        filters: f as Record<string, unknown>,
        author,
        createdAt: new Date(this.ctx.now()),
      })
      .returning({ id: scanIgnoreRules.id });
    return row!.id;
  }

  async getIgnoreRule(id: string): Promise<XrayIgnoreRule> {
    const [row] = await this.ctx.db
      .select()
      .from(scanIgnoreRules)
      .where(eq(scanIgnoreRules.id, uuidOr(id)));
    if (!row) throw new NotFoundError(`Ignore rule '${id}' not found`);
    return this.ignoreRuleOf(row);
  }

  async listIgnoreRules(filter: {
    vulnerability?: string;
    license?: string;
    watch?: string;
    policy?: string;
    component?: string;
    expired?: boolean;
    limit?: number;
    offset?: number;
  }): Promise<{ data: XrayIgnoreRule[]; total_count: number }> {
    const rows = await this.ctx.db.select().from(scanIgnoreRules).orderBy(asc(scanIgnoreRules.createdAt));
    const has = (list: unknown, value: string | undefined) =>
      value === undefined || (Array.isArray(list) && lower(list as string[]).includes(value.toLowerCase()));
    const all = rows
      .map((r) => this.ignoreRuleOf(r))
      .filter((r) => {
        const f = r.ignore_filters;
        return (
          has(f.vulnerabilities ?? f.cves, filter.vulnerability) &&
          has(f.licenses, filter.license) &&
          has(f.watches, filter.watch) &&
          has(f.policies, filter.policy) &&
          has(
            f.component?.map((c) => c.name),
            filter.component,
          ) &&
          (filter.expired === undefined || r.is_expired === filter.expired)
        );
      });
    const offset = filter.offset ?? 0;
    return {
      data: all.slice(offset, filter.limit === undefined ? undefined : offset + filter.limit),
      total_count: all.length,
    };
  }

  async deleteIgnoreRule(id: string): Promise<void> {
    const gone = await this.ctx.db
      .delete(scanIgnoreRules)
      .where(eq(scanIgnoreRules.id, uuidOr(id)))
      .returning({ id: scanIgnoreRules.id });
    if (gone.length === 0) throw new NotFoundError(`Ignore rule '${id}' not found`);
  }

  private ignoreRuleOf(row: IgnoreRow): XrayIgnoreRule {
    return {
      id: row.id,
      notes: row.notes,
      expiration_date: row.expiresAt.toISOString(),
      ignore_filters: row.filters as XrayIgnoreRule['ignore_filters'],
      author: row.author ?? undefined,
      created: row.createdAt.toISOString(),
      is_expired: row.expiresAt.getTime() <= this.ctx.now(),
    };
  }

  /** Ignore rules in force now (by the server's clock). */
  private async rulesInForce(): Promise<IgnoreRow[]> {
    return this.ctx.db
      .select()
      .from(scanIgnoreRules)
      .where(gt(scanIgnoreRules.expiresAt, new Date(this.ctx.now())));
  }

  // -------------------------------------------------------------------------------------------
  // Evaluation

  /** The ScanListener: the artifact's violations replaced by what its watches find now. */
  async onScan(scan: ScanRecord): Promise<void> {
    // The watches and policies as blocking reads them: this node's changes at once, other nodes' within a second.
    const { watches, policies } = await this.blockingConfig();
    const found = evaluateScan(scan, watches, policies);
    if (found.length === 0) {
      // Nothing to add (the common case, and every scan when no watch covers the file): what the file had
      // goes in one statement, without the lock that keeps two writers from adding the same violations.
      await this.ctx.db
        .delete(scanViolations)
        .where(and(eq(scanViolations.repositoryId, scan.repositoryId), eq(scanViolations.path, scan.path)));
      return;
    }
    const now = new Date(this.ctx.now());
    await this.ctx.db.transaction(async (tx) => {
      // One writer per file at a time across nodes (a download's scan-before-serving and the queued
      // scan may finish together): the second reads what the first wrote instead of adding duplicates.
      await tx.execute(
        sql`select pg_advisory_xact_lock(hashtextextended(${`scan-violations:${scan.repositoryId}/${scan.path}`}, 0))`,
      );
      const before = await tx
        .select()
        .from(scanViolations)
        .where(and(eq(scanViolations.repositoryId, scan.repositoryId), eq(scanViolations.path, scan.path)));
      const kept = new Map(before.map((v) => [keyOf(v), v]));
      const fresh: ViolationCandidate[] = [];
      const stay = new Set<string>();
      for (const v of found) {
        const old = kept.get(keyOf(v));
        if (old) stay.add(old.id);
        else fresh.push(v);
      }
      const gone = before.filter((v) => !stay.has(v.id)).map((v) => v.id);
      if (gone.length > 0) await tx.delete(scanViolations).where(inArray(scanViolations.id, gone));
      for (const v of found) {
        const old = kept.get(keyOf(v));
        if (!old) continue;
        await tx
          .update(scanViolations)
          .set({
            severity: v.severity,
            summary: v.summary,
            cves: v.cves,
            blocking: v.blocking,
            failBuild: v.failBuild,
            sha256: scan.sha256,
            updatedAt: now,
          })
          .where(eq(scanViolations.id, old.id));
      }
      if (fresh.length === 0) return;
      const inserted = await tx
        .insert(scanViolations)
        .values(
          fresh.map(({ webhooks: _w, ...v }) => ({
            ...v,
            repositoryId: scan.repositoryId,
            repoKey: scan.repoKey,
            packageType: scan.packageType,
            path: scan.path,
            scope: scopeOf(scan.packageType, scan.path),
            sha256: scan.sha256,
            createdAt: now,
            updatedAt: now,
          })),
        )
        .returning();
      const events: DomainEvent[] = [];
      inserted.forEach((row, i) => {
        const webhooks = fresh[i]!.webhooks;
        if (webhooks.length > 0) events.push(violationEvent(row, webhooks, now));
      });
      await publish(tx, ...events);
    });
  }

  // -------------------------------------------------------------------------------------------
  // Violations

  async violations(input: ViolationsQuery): Promise<{ total: number; rows: Violation[] }> {
    const q = parse(violationsQuerySchema, input);
    const conditions = [
      q.type ? eq(scanViolations.type, q.type) : undefined,
      q.repoKey ? sql`lower(${scanViolations.repoKey}) = ${q.repoKey.toLowerCase()}` : undefined,
      q.watch ? sql`lower(${scanViolations.watch}) = ${q.watch.toLowerCase()}` : undefined,
      q.search
        ? or(
            sql`${scanViolations.issueId} ilike ${`%${q.search}%`}`,
            sql`${scanViolations.componentName} ilike ${`%${q.search}%`}`,
            sql`${scanViolations.path} ilike ${`%${q.search}%`}`,
          )
        : undefined,
    ].filter((c) => c !== undefined);
    const rows = await this.ctx.db
      .select()
      .from(scanViolations)
      .where(conditions.length > 0 ? and(...conditions) : undefined);
    const rules = await this.rulesInForce();
    const all = rows
      .map((row) => {
        const rule = rules.find((r) => ignoreRuleCovers(r.filters as XrayIgnoreRule['ignore_filters'], row));
        return violationOf(row, rule?.id ?? null);
      })
      .filter((v) => q.filter === 'all' || (q.filter === 'ignored' ? v.ignored : !v.ignored));
    const dir = q.direction === 'asc' ? 1 : -1;
    all.sort((a, b) => {
      const by =
        q.orderBy === 'severity'
          ? severityIndex(a.severity) - severityIndex(b.severity)
          : q.orderBy === 'created'
            ? a.created.localeCompare(b.created)
            : a.issueId.localeCompare(b.issueId);
      return by * dir || a.created.localeCompare(b.created) || a.id.localeCompare(b.id);
    });
    const start = (q.page - 1) * q.pageSize;
    return { total: all.length, rows: all.slice(start, start + q.pageSize) };
  }

  /** Xray's `POST /xray/api/v1/violations`: active violations (ignored ones too with `include_ignored`). */
  async xrayViolations(input: unknown): Promise<z.infer<typeof xrayViolationsAnswerSchema>> {
    const q = parse(xrayViolationsRequestSchema, input ?? {});
    const f = q.filters;
    const type = f.violation_type?.toLowerCase();
    if (type && type !== 'security' && type !== 'license')
      throw new InvalidError(`filters.violation_type must be Security or License, not '${f.violation_type}'`);
    const minRank = f.min_severity ? severityIndex(capitalize(f.min_severity)) : ISSUE_SEVERITIES.length;
    if (f.min_severity && minRank >= ISSUE_SEVERITIES.length)
      throw new InvalidError(`filters.min_severity must be one of ${ISSUE_SEVERITIES.join(', ')}`);
    const artifacts = f.resources?.artifacts ?? [];
    const rows = await this.ctx.db
      .select()
      .from(scanViolations)
      .where(
        and(
          type ? eq(scanViolations.type, type) : undefined,
          f.watch_name ? sql`lower(${scanViolations.watch}) = ${f.watch_name.toLowerCase()}` : undefined,
        ),
      );
    const rules = await this.rulesInForce();
    const all = rows
      .filter((r) => severityIndex(r.severity) <= minRank)
      .filter(
        (r) =>
          artifacts.length === 0 ||
          artifacts.some(
            (a) => a.repo.toLowerCase() === r.repoKey.toLowerCase() && a.path.replace(/^\/+/, '') === r.path,
          ),
      )
      .map((r) => ({
        row: r,
        ignored: rules.some((rule) => ignoreRuleCovers(rule.filters as XrayIgnoreRule['ignore_filters'], r)),
      }))
      .filter((v) => f.include_ignored || !v.ignored);
    const p = q.pagination;
    const dir = p.direction === 'asc' ? 1 : -1;
    const value = ({ row }: (typeof all)[number]) =>
      p.order_by === 'severity'
        ? String(severityIndex(row.severity))
        : p.order_by === 'issue_id'
          ? row.issueId
          : p.order_by === 'watch_name'
            ? row.watch
            : row.createdAt.toISOString();
    all.sort((a, b) => value(a).localeCompare(value(b)) * dir || a.row.id.localeCompare(b.row.id));
    return {
      total_violations: all.length,
      violations: all.slice(p.offset, p.offset + p.limit).map(({ row, ignored }) => ({
        violation_id: row.id,
        description: row.summary,
        severity: row.severity,
        type: row.type === 'license' ? 'License' : 'Security',
        infected_components: [row.componentPurl],
        created: row.createdAt.toISOString(),
        watch_name: row.watch,
        issue_id: row.issueId,
        cves: row.cves,
        impacted_artifacts: [`default/${row.repoKey}/${row.path}`],
        policies: [{ policy: row.policy, rule: row.rule }],
        ignored,
        blocking: row.blocking && !ignored,
      })),
    };
  }

  /** Console "ignore": an ignore rule from a violation — its issue in its component (`all`), or that violation (`once`). */
  async ignoreViolation(input: unknown, author: string | null): Promise<{ id: string; info: string }> {
    const req = parse(ignoreViolationRequestSchema, input);
    const [v] = await this.ctx.db
      .select()
      .from(scanViolations)
      .where(eq(scanViolations.id, uuidOr(req.violationId)));
    if (!v) throw new NotFoundError(`Violation '${req.violationId}' not found`);
    const ignore_filters: XrayIgnoreRule['ignore_filters'] =
      req.mode === 'once'
        ? { violation_id: v.id }
        : {
            ...(v.type === 'license' ? { licenses: [v.issueId] } : { vulnerabilities: [v.issueId] }),
            component: [{ name: v.componentName, version: v.componentVersion }],
          };
    const id = await this.createIgnoreRule(
      { notes: req.notes, expiration_date: req.expiration_date, ignore_filters },
      author,
    );
    return { id, info: `Successfully added Ignore rule with id: ${id}` };
  }

  async violation(id: string): Promise<Violation> {
    const [row] = await this.ctx.db
      .select()
      .from(scanViolations)
      .where(eq(scanViolations.id, uuidOr(id)));
    if (!row) throw new NotFoundError(`Violation '${id}' not found`);
    const rule = (await this.rulesInForce()).find((r) =>
      ignoreRuleCovers(r.filters as XrayIgnoreRule['ignore_filters'], row),
    );
    return violationOf(row, rule?.id ?? null);
  }

  // -------------------------------------------------------------------------------------------
  // Blocking

  private async blockingConfig(): Promise<BlockingConfig> {
    const now = this.ctx.now();
    // Other nodes' policy and watch changes show within a second.
    if (this.config && now - this.config.at < 1000 && now >= this.config.at) return this.config;
    const watches = (await this.listWatches()).filter((w) => w.general_data.active);
    const policies = new Map((await this.listPolicies()).map((p) => [p.name.toLowerCase(), p]));
    const config: BlockingConfig = { at: now, watches, policies, any: false, unscanned: [] };
    for (const w of watches)
      for (const assigned of w.assigned_policies) {
        const p = policies.get(assigned.name.toLowerCase());
        if (!p) continue;
        const blocks = p.rules.some((r) => r.actions?.block_download?.active);
        const unscanned = p.rules.some((r) => r.actions?.block_download?.unscanned);
        if (blocks || unscanned) config.any = true;
        if (unscanned) {
          const repos = new Set<string>();
          for (const r of w.project_resources.resources)
            if (r.type === 'all-repos') repos.add('*');
            else if (r.type === 'repository' && r.name) repos.add(r.name.toLowerCase());
          config.unscanned.push({ watch: w.general_data.name, policy: p.name, repos });
        }
      }
    this.config = config;
    return config;
  }

  /** Why a stored file may not be downloaded now, or null. Cheap when no watch blocks anything. */
  async blockedReason(
    file: { repositoryId: string; path: string; sha256: string },
    opts: { scanFirst?: boolean } = {},
  ): Promise<string | null> {
    const config = await this.blockingConfig();
    if (!config.any) return null;
    const rows = await this.ctx.db
      .select()
      .from(scanViolations)
      .where(
        and(
          eq(scanViolations.repositoryId, file.repositoryId),
          eq(scanViolations.blocking, true),
          or(
            inArray(scanViolations.scope, scopesOfDownload(file.path)),
            and(eq(scanViolations.packageType, 'docker'), eq(scanViolations.sha256, file.sha256)),
          ),
        ),
      )
      .orderBy(asc(scanViolations.createdAt));
    if (rows.length > 0) {
      const rules = await this.rulesInForce();
      rows.sort((a, b) => severityIndex(a.severity) - severityIndex(b.severity));
      const standing = rows.find(
        (row) => !rules.some((r) => ignoreRuleCovers(r.filters as XrayIgnoreRule['ignore_filters'], row)),
      );
      if (standing) return blockedMessage(standing);
    }
    if (config.unscanned.length > 0 && this.scanStates) {
      const state = await this.scanStates(file.repositoryId, file.path);
      if (state && (state.status === 'in progress' || state.status === 'not scanned')) {
        const by = config.unscanned.find((u) => u.repos.has('*') || u.repos.has(state.repoKey.toLowerCase()));
        if (by && opts.scanFirst && this.scanBeforeServing) {
          await this.scanBeforeServing(file.repositoryId, file.path);
          return this.blockedReason(file);
        }
        if (by)
          return `${state.repoKey}/${file.path} is blocked by policy '${by.policy}' of watch '${by.watch}' until it is scanned (${state.status}); try again in a moment, or ask an administrator`;
      }
    }
    return null;
  }

  /** Some watch in force blocks downloads at all (the gates' cheap first question). */
  async blocksAny(): Promise<boolean> {
    return (await this.blockingConfig()).any;
  }

  /** Some watch in force blocks the repository's files until they are scanned (`block_download.unscanned`). */
  async blocksUnscanned(repoKey: string): Promise<boolean> {
    const config = await this.blockingConfig();
    const key = repoKey.toLowerCase();
    return config.unscanned.some((u) => u.repos.has('*') || u.repos.has(key));
  }

  /** The repositories core's download gate (`ArtifactExtension.beforeDownload`). */
  async checkDownload(file: { repositoryId: string; path: string; sha256: string }): Promise<void> {
    const reason = await this.blockedReason(file, { scanFirst: true });
    if (reason) throw new ForbiddenError(reason);
  }
}

/** `policy.violation` (event domain `policy`): what a webhook receiver needs to act on it. */
function violationEvent(row: ViolationRow, webhooks: string[], at: Date): DomainEvent {
  return {
    type: 'policy.violation',
    payload: {
      violation_id: row.id,
      watch_name: row.watch,
      policy_name: row.policy,
      rule_name: row.rule,
      type: row.type,
      severity: row.severity,
      issue_id: row.issueId,
      cves: row.cves,
      summary: row.summary,
      repo_key: row.repoKey,
      path: row.path,
      sha256: row.sha256,
      component: row.componentPurl,
      component_name: row.componentName,
      component_version: row.componentVersion,
      blocking: row.blocking,
      webhooks,
      created: at.toISOString(),
    },
  };
}

function violationOf(row: ViolationRow, ignoreRuleId: string | null): Violation {
  return {
    id: row.id,
    type: row.type as Violation['type'],
    severity: row.severity as Violation['severity'],
    issueId: row.issueId,
    summary: row.summary,
    watch: row.watch,
    policy: row.policy,
    rule: row.rule,
    repoKey: row.repoKey,
    path: row.path,
    componentPurl: row.componentPurl,
    blocking: row.blocking && ignoreRuleId === null,
    ignored: ignoreRuleId !== null,
    ignoreRuleId,
    created: row.createdAt.toISOString(),
  };
}

function policyOf(row: typeof scanPolicies.$inferSelect): XrayPolicy {
  return {
    ...(row.body as unknown as XrayPolicy),
    name: row.name,
    type: row.type as XrayPolicy['type'],
    ...(row.author ? { author: row.author } : {}),
    created: row.createdAt.toISOString(),
    modified: row.modifiedAt.toISOString(),
  };
}

function watchOf(row: typeof scanWatches.$inferSelect): XrayWatch {
  const body = row.body as unknown as XrayWatch;
  return {
    ...body,
    general_data: { ...body.general_data, id: row.name, name: row.name, active: row.active },
    project_resources: body.project_resources ?? { resources: [] },
    assigned_policies: body.assigned_policies ?? [],
  };
}

/** A rule's criteria fit its policy's type. */
function checkRule(type: 'security' | 'license', rule: XrayPolicy['rules'][number]): void {
  const c = rule.criteria;
  if (type === 'security') {
    if (c.allowed_licenses || c.banned_licenses || c.allow_unknown !== undefined)
      throw new InvalidError(`Rule '${rule.name}': a security rule takes no licence criteria`);
    if (!c.min_severity && !c.cvss_range && !(c.vulnerability_ids?.length ?? 0))
      throw new InvalidError(`Rule '${rule.name}' needs min_severity, cvss_range or vulnerability_ids`);
    if (c.cvss_range && c.cvss_range.from > c.cvss_range.to)
      throw new InvalidError(`Rule '${rule.name}': cvss_range.from is above cvss_range.to`);
  } else {
    if (c.min_severity || c.cvss_range || c.vulnerability_ids)
      throw new InvalidError(`Rule '${rule.name}': a licence rule takes no security criteria`);
    if (c.allowed_licenses?.length && c.banned_licenses?.length)
      throw new InvalidError(`Rule '${rule.name}': give allowed_licenses or banned_licenses, not both`);
    if (!c.allowed_licenses?.length && !c.banned_licenses?.length && c.allow_unknown !== false)
      throw new InvalidError(
        `Rule '${rule.name}' needs allowed_licenses, banned_licenses or allow_unknown: false`,
      );
  }
}

/** Parses with a contracts schema; a 400 naming the first problem's field. */
function parse<
  S extends {
    safeParse(
      v: unknown,
    ):
      | { success: true; data: unknown }
      | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
  },
>(
  schema: S,
  input: unknown,
): S extends { safeParse(v: unknown): { success: true; data: infer T } | { success: false } } ? T : never {
  const result = schema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const where = issue.path.map(String).join('.');
    throw new InvalidError(where ? `${where}: ${issue.message}` : issue.message);
  }
  return result.data as never;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** An id as given when it is a uuid, else one no row has (an unknown id is a 404, not a database error). */
const uuidOr = (id: string) => (UUID.test(id) ? id : '00000000-0000-0000-0000-000000000000');
