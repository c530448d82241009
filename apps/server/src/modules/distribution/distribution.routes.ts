import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  distributionSchema,
  distributionTargetSchema,
  environmentSchema,
  promotionSchema,
  promotionsSchema,
  receivedSchema,
  releaseBundleByChecksumSchema,
  releaseBundleCreatedSchema,
  releaseBundleNamesSchema,
  releaseBundleVersionSchema,
  releaseBundleVersionsSchema,
  signingKeySchema,
  trustedKeySchema,
} from '@granary/contracts';
import { z } from 'zod';
import { authorize, findRepository, repositoryHidden } from '../repositories/repositories.api.ts';
import {
  bundleDetails,
  bundlesByChecksum,
  createBundle,
  deleteBundle,
  getBundleRow,
  listBundleNames,
  listBundleVersions,
} from './bundles.ts';
import type { DistributionContext } from './context.ts';
import {
  createTarget,
  deleteTarget,
  distribute,
  getReceived,
  listReceived,
  listTargets,
  listTrackers,
  PULL_TOKEN_HEADER,
  pullFile,
  receive,
  retryTracker,
  updateTarget,
} from './distribute.ts';
import {
  addTrustedKey,
  deleteSigningKey,
  deleteTrustedKey,
  generateSigningKey,
  getSigningKey,
  importSigningKey,
  listSigningKeys,
  listTrustedKeys,
  publicKeyOf,
} from './keys.ts';
import {
  createEnvironment,
  deleteEnvironment,
  listEnvironments,
  listPromotions,
  promote,
  updateEnvironment,
} from './promotion.ts';

const tags = ['release bundles'];
const admin = { access: 'admin' as const };
const signedIn = { access: 'authenticated' as const };
const anyone = { access: 'public' as const };
const body = z.record(z.string(), z.unknown());
const nameParam = z.object({ name: z.string().min(1).max(300) });
const nv = z.object({ name: z.string().min(1).max(300), version: z.string().min(1).max(300) });
const LC = '/lifecycle/api/v2';
const by = (p: { name: string } | null) => p?.name ?? 'anonymous';

/**
 * Release bundles v2 and distribution (issue 19) under Artifactory's public paths: key pairs and
 * trusted keys, Release Lifecycle Management's bundles, promotions and distribution, environments,
 * and the target side (receive, transfer status) a source calls with the target's token.
 */
export function distributionRoutes(ctx: DistributionContext): FastifyPluginAsyncZod {
  return async (app) => {
    // ---------------------------------------------------------------- signing keys
    app.get(
      '/api/security/keypair',
      {
        config: admin,
        schema: { tags, summary: 'Signing keys', response: { 200: z.array(signingKeySchema) } },
      },
      async () => listSigningKeys(ctx),
    );
    app.get(
      '/api/security/keypair/:name',
      { config: admin, schema: { tags, params: nameParam, response: { 200: signingKeySchema } } },
      async (request) => getSigningKey(ctx, request.params.name),
    );
    app.get(
      '/api/security/keypair/:name/public',
      { config: anyone, schema: { tags, summary: 'Armored public key (for targets)', params: nameParam } },
      async (request, reply) =>
        reply.type('text/plain; charset=utf-8').send(await publicKeyOf(ctx, request.params.name)),
    );
    app.get(
      '/api/security/keypair/public/repositories/:repoKey',
      {
        config: anyone,
        schema: {
          tags,
          summary: "A repository's armored public signing key (Debian, RPM, Terraform index signatures)",
          params: z.object({ repoKey: z.string() }),
        },
      },
      async (request, reply) => {
        const repo = await findRepository(ctx.db, request.params.repoKey);
        if (!repo) throw repositoryHidden(request.principal, request.params.repoKey);
        await authorize(ctx.repositories, request.principal, 'read', repo, '');
        const key = await ctx.repositories.signing!(repo.key, repo.signing?.primaryKeyPairRef).publicKey();
        return reply.type('text/plain; charset=utf-8').send(key);
      },
    );
    app.post(
      '/api/security/keypair',
      {
        config: admin,
        schema: {
          tags,
          summary: 'Generate (no privateKey) or import (privateKey, passphrase) a GPG key pair',
          body,
          response: { 201: signingKeySchema },
        },
      },
      async (request, reply) => {
        const b = request.body as Record<string, unknown>;
        const key =
          typeof b.privateKey === 'string' && b.privateKey !== ''
            ? await importSigningKey(ctx, b as never, by(request.principal))
            : await generateSigningKey(ctx, b as never, by(request.principal));
        return reply.code(201).send(key);
      },
    );
    app.delete(
      '/api/security/keypair/:name',
      { config: admin, schema: { tags, params: nameParam } },
      async (request, reply) => {
        await deleteSigningKey(ctx, request.params.name);
        return reply.code(204).send();
      },
    );
    app.get(
      '/api/security/keys/trusted',
      { config: admin, schema: { tags, response: { 200: z.object({ keys: z.array(trustedKeySchema) }) } } },
      async () => ({ keys: await listTrustedKeys(ctx) }),
    );
    app.post(
      '/api/security/keys/trusted',
      { config: admin, schema: { tags, body, response: { 201: trustedKeySchema } } },
      async (request, reply) =>
        reply.code(201).send(await addTrustedKey(ctx, request.body as never, by(request.principal))),
    );
    app.delete(
      '/api/security/keys/trusted/:kid',
      { config: admin, schema: { tags, params: z.object({ kid: z.string().min(1).max(64) }) } },
      async (request, reply) => {
        await deleteTrustedKey(ctx, request.params.kid);
        return reply.code(204).send();
      },
    );

    // ---------------------------------------------------------------- release bundles
    app.post(
      `${LC}/release_bundle`,
      {
        config: signedIn,
        schema: {
          tags,
          summary: 'Create a release bundle version',
          body,
          response: { 201: releaseBundleCreatedSchema },
        },
      },
      async (request, reply) => {
        const key = request.headers['x-jfrog-signing-key-name'];
        const created = await createBundle(
          ctx,
          request.principal,
          typeof key === 'string' && key !== '' ? key : undefined,
          request.body as never,
        );
        return reply.code(201).send(created);
      },
    );
    app.get(
      `${LC}/release_bundle/names`,
      { config: signedIn, schema: { tags, response: { 200: releaseBundleNamesSchema } } },
      async (request) => listBundleNames(ctx, request.principal),
    );
    app.get(
      `${LC}/release_bundle/records/:name`,
      {
        config: signedIn,
        schema: { tags, params: nameParam, response: { 200: releaseBundleVersionsSchema } },
      },
      async (request) => listBundleVersions(ctx, request.principal, request.params.name),
    );
    app.get(
      `${LC}/release_bundle/records/:name/:version`,
      { config: signedIn, schema: { tags, params: nv, response: { 200: releaseBundleVersionSchema } } },
      async (request) => bundleDetails(ctx, request.principal, request.params.name, request.params.version),
    );
    app.get(
      `${LC}/release_bundle/records/:name/:version/manifest`,
      {
        config: signedIn,
        schema: { tags, summary: 'The canonical manifest (the bytes signed)', params: nv },
      },
      async (request, reply) => {
        const row = await getBundleRow(ctx, request.principal, request.params.name, request.params.version);
        return reply.type('application/json; charset=utf-8').send(row.manifest);
      },
    );
    app.get(
      `${LC}/release_bundle/records/:name/:version/signature`,
      {
        config: signedIn,
        schema: { tags, summary: 'Detached armored signature of the manifest', params: nv },
      },
      async (request, reply) => {
        const row = await getBundleRow(ctx, request.principal, request.params.name, request.params.version);
        return reply.type('text/plain; charset=utf-8').send(row.signature);
      },
    );
    app.delete(
      `${LC}/release_bundle/records/:name/:version`,
      { config: signedIn, schema: { tags, params: nv } },
      async (request, reply) => {
        await deleteBundle(ctx, request.principal, request.params.name, request.params.version);
        return reply.code(204).send();
      },
    );
    for (const prefix of ['', '/ui/api/v1'])
      app.get(
        `${prefix}/distribution/api/ui/release_bundle/checksum/:checksum`,
        {
          config: signedIn,
          schema: {
            tags,
            summary: 'Release bundles holding a file (spec 001 §4)',
            params: z.object({ checksum: z.string().min(1).max(128) }),
            querystring: z.object({ num_of_rows: z.coerce.number().int().min(1).max(1000).default(10) }),
            response: { 200: releaseBundleByChecksumSchema },
          },
        },
        async (request) =>
          bundlesByChecksum(ctx, request.principal, request.params.checksum, request.query.num_of_rows),
      );

    // ---------------------------------------------------------------- environments and promotion
    app.get(
      '/access/api/v1/environments',
      { config: signedIn, schema: { tags, response: { 200: z.array(environmentSchema) } } },
      async () => listEnvironments(ctx),
    );
    app.post(
      '/access/api/v1/environments',
      { config: admin, schema: { tags, body, response: { 201: environmentSchema } } },
      async (request, reply) => reply.code(201).send(await createEnvironment(ctx, request.body as never)),
    );
    app.put(
      '/access/api/v1/environments/:name',
      { config: admin, schema: { tags, params: nameParam, body, response: { 200: environmentSchema } } },
      async (request) => updateEnvironment(ctx, request.params.name, request.body as never),
    );
    app.delete(
      '/access/api/v1/environments/:name',
      { config: admin, schema: { tags, params: nameParam } },
      async (request, reply) => {
        await deleteEnvironment(ctx, request.params.name);
        return reply.code(204).send();
      },
    );
    app.post(
      `${LC}/promotion/records/:name/:version`,
      { config: signedIn, schema: { tags, params: nv, body, response: { 201: promotionSchema } } },
      async (request, reply) =>
        reply
          .code(201)
          .send(
            await promote(
              ctx,
              request.principal,
              request.params.name,
              request.params.version,
              request.body as never,
            ),
          ),
    );
    app.get(
      `${LC}/promotion/records/:name/:version`,
      { config: signedIn, schema: { tags, params: nv, response: { 200: promotionsSchema } } },
      async (request) => listPromotions(ctx, request.principal, request.params.name, request.params.version),
    );

    // ---------------------------------------------------------------- distribution (source)
    app.get(
      `${LC}/distribution/targets`,
      { config: admin, schema: { tags, response: { 200: z.array(distributionTargetSchema) } } },
      async () => listTargets(ctx),
    );
    app.post(
      `${LC}/distribution/targets`,
      { config: admin, schema: { tags, body, response: { 201: distributionTargetSchema } } },
      async (request, reply) => reply.code(201).send(await createTarget(ctx, request.body as never)),
    );
    app.put(
      `${LC}/distribution/targets/:name`,
      {
        config: admin,
        schema: { tags, params: nameParam, body, response: { 200: distributionTargetSchema } },
      },
      async (request) => updateTarget(ctx, request.params.name, request.body as never),
    );
    app.delete(
      `${LC}/distribution/targets/:name`,
      { config: admin, schema: { tags, params: nameParam } },
      async (request, reply) => {
        await deleteTarget(ctx, request.params.name);
        return reply.code(204).send();
      },
    );
    app.post(
      `${LC}/distribution/distribute/:name/:version`,
      {
        config: signedIn,
        schema: { tags, params: nv, body: body.optional(), response: { 202: distributionSchema } },
      },
      async (request, reply) =>
        reply
          .code(202)
          .send(
            await distribute(
              ctx,
              request.principal,
              `${request.protocol}://${request.host}`,
              request.params.name,
              request.params.version,
              (request.body ?? {}) as never,
            ),
          ),
    );
    app.get(
      `${LC}/distribution/trackers/:name/:version`,
      { config: signedIn, schema: { tags, params: nv, response: { 200: z.array(distributionSchema) } } },
      async (request) => listTrackers(ctx, request.principal, request.params.name, request.params.version),
    );
    app.post(
      `${LC}/distribution/trackers/:name/:version/:trackerId/retry`,
      {
        config: signedIn,
        schema: {
          tags,
          params: nv.extend({ trackerId: z.string().min(1).max(64) }),
          response: { 202: distributionSchema },
        },
      },
      async (request, reply) =>
        reply
          .code(202)
          .send(
            await retryTracker(
              ctx,
              request.principal,
              request.params.name,
              request.params.version,
              request.params.trackerId,
            ),
          ),
    );
    // A target pulls here with the distribution's own token (not a user's): only that bundle's files.
    app.get(
      `${LC}/distribution/pull/:trackerId/:sha256`,
      {
        config: anyone,
        schema: {
          tags,
          summary: 'A file of a distributed bundle (targets, with the pull token)',
          params: z.object({ trackerId: z.string().max(64), sha256: z.string().regex(/^[a-fA-F0-9]{64}$/) }),
        },
      },
      async (request, reply) => {
        const token = request.headers[PULL_TOKEN_HEADER];
        const file = await pullFile(
          ctx,
          request.params.trackerId,
          request.params.sha256,
          typeof token === 'string' ? token : undefined,
        );
        return reply.type('application/octet-stream').header('content-length', file.size).send(file.stream);
      },
    );

    // ---------------------------------------------------------------- destination (target)
    app.post(
      `${LC}/distribution/receive`,
      {
        config: admin,
        schema: {
          tags,
          summary: 'Receive a release bundle (sources call this)',
          body,
          response: { 202: receivedSchema },
        },
      },
      async (request, reply) =>
        reply.code(202).send(await receive(ctx, request.principal!, request.body as never)),
    );
    app.get(
      `${LC}/distribution/received`,
      { config: admin, schema: { tags, response: { 200: z.array(receivedSchema) } } },
      async () => listReceived(ctx),
    );
    app.get(
      `${LC}/distribution/received/:id`,
      {
        config: admin,
        schema: { tags, params: z.object({ id: z.string().max(64) }), response: { 200: receivedSchema } },
      },
      async (request) => getReceived(ctx, request.params.id),
    );
  };
}
