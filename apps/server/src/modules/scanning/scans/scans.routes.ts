import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  artifactScanSchema,
  customLicenseSchema,
  indexedReposSchema,
  indexedReposWriteSchema,
  licenseRowSchema,
  parsePackageId,
  scanNowRequestSchema,
  scanStatusAnswerSchema,
  scanStatusRequestSchema,
  securityIssuesPageSchema,
  securityIssuesQuerySchema,
} from '@granary/contracts';
import { z } from 'zod';
import { InvalidError } from '../../../platform/errors.ts';
import { documentedAs } from '../openapi-docs.ts';
import type { ScansReader } from './scans.read.ts';

const tags = ['scanning'];
const UI = '/ui/api/v1/xray/ui';
const XRAY = '/xray/api/v1';
const admin = { access: 'admin' as const };
const signedIn = { access: 'authenticated' as const };
// Permission on repositories is asked per artifact by the reader; anonymous callers hear 401 there.
const anyone = { access: 'public' as const };
const anyObject = z.record(z.string(), z.unknown());
const info = z.object({ info: z.string() });
const xrayRepos = z.object({
  bin_mgr_id: z.string(),
  indexed_repos: z.array(z.object({ name: z.string(), type: z.string(), pkg_type: z.string() })),
  non_indexed_repos: z.array(z.object({ name: z.string(), type: z.string(), pkg_type: z.string() })),
});

/** A version target of the console (`packageId` `npm://name`, `version`) as the reader takes it. */
function targetOf(body: z.infer<typeof scanStatusRequestSchema>) {
  const name = body.data.packageId
    ? (parsePackageId(body.data.packageId)?.name ?? body.data.packageId)
    : undefined;
  return { type: body.type, path: body.data.path, name, version: body.data.version };
}

/**
 * The scans' calls (issue 16): the console's `/xray/ui/…` (spec 001 §7: scan status, scan now,
 * indexed repositories, security issues, licence names, custom licences, component general data,
 * impact path, an artifact's scan) under `/ui/api/v1/`, Xray's REST twins under `/xray/api/v1/`, and
 * SBOMs at `/api/sbom/{repoKey}/{path}`.
 */
export function scansRoutes(reader: ScansReader): FastifyPluginAsyncZod {
  return async (app) => {
    // Indexed repositories ---------------------------------------------------------------------
    app.get(
      `${UI}/indexedRepos`,
      { config: admin, schema: { tags, hide: true, response: { 200: indexedReposSchema } } },
      async () => reader.indexedRepos(),
    );
    app.put(
      `${UI}/indexedRepos`,
      {
        config: admin,
        schema: { tags, hide: true, body: indexedReposWriteSchema, response: { 200: indexedReposSchema } },
      },
      async (request) => reader.setIndexed(request.body.indexed),
    );
    app.get(
      `${XRAY}/binMgr/default/repos`,
      {
        config: admin,
        schema: { tags, summary: "Xray's indexed repositories", response: { 200: xrayRepos } },
      },
      async () => toXrayRepos(await reader.indexedRepos()),
    );
    app.put(
      `${XRAY}/binMgr/default/repos`,
      {
        config: admin,
        schema: {
          tags,
          summary: 'Sets the indexed repositories (Xray)',
          body: z
            .object({ indexed_repos: z.array(z.object({ name: z.string() }).passthrough()) })
            .passthrough(),
          response: { 200: info },
        },
      },
      async (request) => {
        await reader.setIndexed(request.body.indexed_repos.map((r) => r.name));
        return { info: 'Repositories list updated successfully' };
      },
    );

    // Scan status and scan now -----------------------------------------------------------------
    app.post(
      `${UI}/scanStatus`,
      {
        config: anyone,
        schema: {
          tags,
          hide: true,
          body: scanStatusRequestSchema,
          response: { 200: scanStatusAnswerSchema },
        },
      },
      async (request) =>
        reader.scanStatus(request.principal, request.body.data.repoKey, targetOf(request.body)),
    );
    app.post(
      `${UI}/scanNow`,
      { config: signedIn, schema: { tags, hide: true, body: scanNowRequestSchema, response: { 200: info } } },
      async (request) => {
        const n = await reader.scanNow(request.principal, request.body.data.repoKey, targetOf(request.body));
        return { info: `${n} artifact(s) queued for scanning` };
      },
    );
    app.post(
      `${XRAY}/scanArtifact`,
      {
        config: signedIn,
        schema: {
          tags,
          summary: 'Scans an artifact now (Xray): `{repo, path}` or `{componentID}` (`npm://name:version`)',
          body: z.object({
            componentID: z.string().optional(),
            repo: z.string().optional(),
            path: z.string().optional(),
          }),
          response: { 200: info },
        },
      },
      async (request) => {
        const { repo, path, componentID } = request.body;
        if (repo && path) await reader.scanNow(request.principal, repo, { type: 'artifact', path });
        else if (componentID) await reader.scanComponent(request.principal, componentID);
        else throw new InvalidError('Give {repo, path} or {componentID}');
        return { info: 'Scan of artifact is in progress' };
      },
    );
    app.post(
      `${XRAY}/artifact/status`,
      {
        config: anyone,
        schema: {
          tags,
          summary: "An artifact's scan status (Xray)",
          body: z.object({ repo: z.string(), path: z.string() }),
          response: {
            200: z.object({
              overall: z.object({
                status: z.enum(['DONE', 'PENDING', 'FAILED', 'NOT_SUPPORTED', 'NOT_SCANNED']),
                time: z.string(),
              }),
              details: anyObject.optional(),
            }),
          },
        },
      },
      async (request) => reader.xrayStatus(request.principal, request.body.repo, request.body.path),
    );
    app.post(
      `${XRAY}/summary/artifact`,
      {
        config: anyone,
        schema: {
          tags,
          summary: "Artifacts' issues and licences (Xray's summary)",
          body: z.object({
            paths: z.array(z.string()).max(1000).default([]),
            checksums: z.array(z.string()).optional(),
          }),
          response: { 200: z.object({ artifacts: z.array(anyObject), errors: z.array(anyObject) }) },
        },
      },
      async (request) => reader.xraySummaries(request.principal, request.body.paths),
    );

    // The console's lists -----------------------------------------------------------------------
    app.get(
      `${UI}/scan/:repoKey/*`,
      {
        config: anyone,
        schema: {
          tags,
          hide: true,
          params: z.object({ repoKey: z.string(), '*': z.string() }),
          response: { 200: artifactScanSchema },
        },
      },
      async (request) => reader.artifactScan(request.principal, request.params.repoKey, request.params['*']),
    );
    app.post(
      `${UI}/securityIssues`,
      {
        config: anyone,
        schema: {
          tags,
          hide: true,
          body: securityIssuesQuerySchema,
          response: { 200: securityIssuesPageSchema },
        },
      },
      async (request) => reader.securityIssues(request.principal, request.body),
    );
    app.get(
      `${UI}/licenses`,
      { config: anyone, schema: { tags, hide: true, response: { 200: z.array(licenseRowSchema) } } },
      async (request) => reader.licenses(request.principal),
    );
    app.post(
      `${UI}/customLicense`,
      {
        config: admin,
        schema: { tags, hide: true, body: customLicenseSchema, response: { 200: customLicenseSchema } },
      },
      async (request) => reader.putCustomLicense(request.body),
    );
    app.delete(
      `${UI}/customLicense/:name`,
      {
        config: admin,
        schema: { tags, hide: true, params: z.object({ name: z.string() }), response: { 200: info } },
      },
      async (request) => {
        await reader.deleteCustomLicense(request.params.name);
        return { info: `Custom licence ${request.params.name} deleted` };
      },
    );
    app.post(
      `${UI}/component/details/general`,
      {
        config: anyone,
        schema: {
          tags,
          hide: true,
          body: z.object({ purl: z.string().optional(), component_id: z.string().optional() }),
          response: { 200: anyObject },
        },
      },
      async (request) => reader.componentGeneral(request.principal, request.body),
    );
    app.post(
      `${UI}/impactPath`,
      {
        config: anyone,
        schema: {
          tags,
          hide: true,
          body: z.object({
            repoKey: z.string(),
            path: z.string(),
            purl: z.string().optional(),
            issueId: z.string().optional(),
          }),
          response: { 200: z.object({ paths: z.array(z.array(z.string())) }) },
        },
      },
      async (request) => reader.impactPaths(request.principal, request.body),
    );

    // SBOM -------------------------------------------------------------------------------------
    app.get(
      '/api/sbom/:repoKey/*',
      {
        config: anyone,
        schema: {
          tags,
          summary:
            "A stored file's SBOM: CycloneDX 1.6 (default, vulnerabilities as VEX) or SPDX 2.3 JSON; 404 until it is scanned",
          params: z.object({ repoKey: z.string(), '*': z.string() }),
          querystring: z.object({ format: z.enum(['cyclonedx', 'spdx']).default('cyclonedx') }),
          produces: ['application/vnd.cyclonedx+json', 'application/spdx+json'],
          response: {
            200: documentedAs(
              z.object({}).loose(),
              'The CycloneDX 1.6 (bomFormat, specVersion, components, dependencies, vulnerabilities) or SPDX 2.3 (spdxVersion, packages, relationships) JSON document',
            ),
          },
        },
      },
      async (request, reply) => {
        const { document, format } = await reader.sbom(
          request.principal,
          request.params.repoKey,
          request.params['*'],
          request.query.format,
        );
        const file = request.params['*'].split('/').pop() || 'sbom';
        return reply
          .header(
            'content-type',
            format === 'spdx' ? 'application/spdx+json' : 'application/vnd.cyclonedx+json',
          )
          .header(
            'content-disposition',
            `attachment; filename="${file}.${format === 'spdx' ? 'spdx' : 'cdx'}.json"`,
          )
          .send(document);
      },
    );
  };
}

function toXrayRepos(r: z.infer<typeof indexedReposSchema>): z.infer<typeof xrayRepos> {
  const map = (x: { name: string; type: string; pkgType: string }) => ({
    name: x.name,
    type: x.type,
    pkg_type: x.pkgType,
  });
  return {
    bin_mgr_id: 'default',
    indexed_repos: r.indexed.map(map),
    non_indexed_repos: r.notIndexed.map(map),
  };
}
