import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  ignoreViolationAnswerSchema,
  violationsPageSchema,
  watchesByIssueSchema,
  xrayIgnoreRuleSchema,
  xrayIgnoreRulesPageSchema,
  xrayPolicySchema,
  xrayViolationsAnswerSchema,
  xrayViolationsRequestSchema,
  xrayWatchSchema,
} from '@granary/contracts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { bodyDocumentedAs, documentedAs } from '../openapi-docs.ts';
import type { PoliciesService } from './policies.service.ts';

const tags = ['xray'];
const admin = { access: 'admin' as const };
/** Xray's public paths, and the same under the console's API prefix (DESIGN's URL rule). */
const XRAY_PREFIXES = ['/xray/api/', '/ui/api/v1/xray/api/'];
const UI = '/ui/api/v1/xray/ui/';

const json = z.record(z.string(), z.unknown());
// Bodies are parsed by the service (Xray's messages); OpenAPI shows their contracts schemas.
const policyBody = bodyDocumentedAs(xrayPolicySchema);
const watchBody = bodyDocumentedAs(xrayWatchSchema);
const ignoreRuleBody = bodyDocumentedAs(xrayIgnoreRuleSchema);
const violationsBody = bodyDocumentedAs(xrayViolationsRequestSchema);
const info = z.object({ info: z.string() });
const nameParams = z.object({ name: z.string().min(1).max(128) });
const idParams = z.object({ id: z.string().min(1).max(64) });
const author = (request: FastifyRequest) => request.principal?.name ?? null;

const ignoreRulesQuery = z.object({
  vulnerability: z.string().optional(),
  cve: z.string().optional(),
  license: z.string().optional(),
  policy: z.string().optional(),
  watch: z.string().optional(),
  component_name: z.string().optional(),
  expired: z.enum(['true', 'false']).optional(),
  page_num: z.coerce.number().int().min(1).optional(),
  num_of_rows: z.coerce.number().int().min(1).max(10_000).optional(),
});

/**
 * Xray's policy, watch, ignore-rule and violation REST API (issue 16 "Console and API": Xray's paths
 * and JSON, so its scripts and Terraform provider work), and the console's `/xray/ui/…` calls for
 * violations, ignoring, and watches by issue. Administrators only, on every route.
 */
export function policyRoutes(service: PoliciesService): FastifyPluginAsyncZod {
  return async (app) => {
    for (const P of XRAY_PREFIXES) {
      const hide = P !== XRAY_PREFIXES[0];
      const s = <T extends object = object>(summary: string, rest?: T) => ({
        tags,
        hide,
        summary,
        ...(rest as T),
      });

      app.get(
        `${P}v2/policies`,
        {
          config: admin,
          schema: s('Xray policies', { response: { 200: documentedAs(z.array(xrayPolicySchema)) } }),
        },
        async () => service.listPolicies(),
      );
      app.post(
        `${P}v2/policies`,
        { config: admin, schema: s('Create an Xray policy', { body: policyBody, response: { 201: info } }) },
        async (request, reply) => {
          await service.savePolicy(request.body, author(request));
          return reply.code(201).send({ info: 'Policy created successfully' });
        },
      );
      app.get(
        `${P}v2/policies/:name`,
        {
          config: admin,
          schema: s('An Xray policy', {
            params: nameParams,
            response: { 200: documentedAs(xrayPolicySchema) },
          }),
        },
        async (request) => service.getPolicy(request.params.name),
      );
      app.put(
        `${P}v2/policies/:name`,
        {
          config: admin,
          schema: s('Replace an Xray policy', {
            params: nameParams,
            body: policyBody,
            response: { 200: info },
          }),
        },
        async (request) => {
          await service.savePolicy(request.body, author(request), request.params.name);
          return { info: 'Policy updated successfully' };
        },
      );
      app.delete(
        `${P}v2/policies/:name`,
        {
          config: admin,
          schema: s('Delete an Xray policy (409 while a watch assigns it)', {
            params: nameParams,
            response: { 200: info },
          }),
        },
        async (request) => {
          await service.deletePolicy(request.params.name);
          return { info: 'Policy deleted successfully' };
        },
      );

      app.get(
        `${P}v2/watches`,
        {
          config: admin,
          schema: s('Xray watches', { response: { 200: documentedAs(z.array(xrayWatchSchema)) } }),
        },
        async () => service.listWatches(),
      );
      app.post(
        `${P}v2/watches`,
        { config: admin, schema: s('Create an Xray watch', { body: watchBody, response: { 201: info } }) },
        async (request, reply) => {
          await service.saveWatch(request.body);
          return reply.code(201).send({ info: 'Watch has been successfully created' });
        },
      );
      app.get(
        `${P}v2/watches/:name`,
        {
          config: admin,
          schema: s('An Xray watch', {
            params: nameParams,
            response: { 200: documentedAs(xrayWatchSchema) },
          }),
        },
        async (request) => service.getWatch(request.params.name),
      );
      app.put(
        `${P}v2/watches/:name`,
        {
          config: admin,
          schema: s('Replace an Xray watch', {
            params: nameParams,
            body: watchBody,
            response: { 200: info },
          }),
        },
        async (request) => {
          await service.saveWatch(request.body, request.params.name);
          return { info: 'Watch has been successfully updated' };
        },
      );
      app.delete(
        `${P}v2/watches/:name`,
        {
          config: admin,
          schema: s('Delete an Xray watch (its violations go with it)', {
            params: nameParams,
            response: { 200: info },
          }),
        },
        async (request) => {
          await service.deleteWatch(request.params.name);
          return { info: 'Watch has been successfully deleted' };
        },
      );

      app.post(
        `${P}v1/ignore_rules`,
        {
          config: admin,
          schema: s('Create an ignore rule (notes and expiration_date required)', {
            body: ignoreRuleBody,
            response: { 201: info },
          }),
        },
        async (request, reply) => {
          const id = await service.createIgnoreRule(request.body, author(request));
          return reply.code(201).send({ info: `Successfully added Ignore rule with id: ${id}` });
        },
      );
      app.get(
        `${P}v1/ignore_rules`,
        {
          config: admin,
          schema: s('Ignore rules', {
            querystring: ignoreRulesQuery,
            response: { 200: documentedAs(xrayIgnoreRulesPageSchema) },
          }),
        },
        async (request) => {
          const q = request.query;
          const rows = q.num_of_rows;
          return service.listIgnoreRules({
            vulnerability: q.vulnerability ?? q.cve,
            license: q.license,
            policy: q.policy,
            watch: q.watch,
            component: q.component_name,
            expired: q.expired === undefined ? undefined : q.expired === 'true',
            limit: rows,
            offset: rows && q.page_num ? (q.page_num - 1) * rows : 0,
          });
        },
      );
      app.get(
        `${P}v1/ignore_rules/:id`,
        {
          config: admin,
          schema: s('An ignore rule', {
            params: idParams,
            response: { 200: documentedAs(xrayIgnoreRuleSchema) },
          }),
        },
        async (request) => service.getIgnoreRule(request.params.id),
      );
      app.delete(
        `${P}v1/ignore_rules/:id`,
        { config: admin, schema: s('Delete an ignore rule', { params: idParams, response: { 200: info } }) },
        async (request) => {
          await service.deleteIgnoreRule(request.params.id);
          return { info: `Successfully deleted Ignore rule with id: ${request.params.id}` };
        },
      );

      app.post(
        `${P}v1/violations`,
        {
          config: admin,
          schema: s('Violations (filters: watch_name, violation_type, min_severity, resources.artifacts)', {
            body: violationsBody.optional(),
            response: { 200: xrayViolationsAnswerSchema },
          }),
        },
        async (request) => service.xrayViolations(request.body ?? {}),
      );
    }

    // The console's calls (spec 001 §7 "Security scanning").
    app.post(
      `${UI}violations`,
      {
        config: admin,
        schema: {
          tags,
          hide: true,
          summary: "Violations: filter 'active' (default), 'ignored' or 'all'; 25 a page by severity",
          body: json.optional(),
          response: { 200: violationsPageSchema },
        },
      },
      async (request) => service.violations(request.body ?? {}),
    );
    app.post(
      `${UI}ignore`,
      {
        config: admin,
        schema: {
          tags,
          hide: true,
          summary:
            'Ignore a violation always (its issue in its component) or once; justification and expiry required',
          body: json,
          response: { 201: ignoreViolationAnswerSchema },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await service.ignoreViolation(request.body, author(request))),
    );
    app.get(
      `${UI}watchesByIssue/:issueId`,
      {
        config: admin,
        schema: {
          tags,
          hide: true,
          summary: 'Watches with violations of an issue',
          params: z.object({ issueId: z.string().min(1).max(256) }),
          response: { 200: watchesByIssueSchema },
        },
      },
      async (request) => ({ watches: await service.watchesByIssue(request.params.issueId) }),
    );
  };
}
