import type { FastifyInstance } from 'fastify';
import { InvalidError, NotFoundError } from '../../platform/errors.ts';
import type { Platform } from '../../platform/platform.ts';
import type { AccessModule } from '../access/index.ts';
import type { RepositoriesContext } from '../repositories/index.ts';
import { listRepositories, updateRepositoryConfig } from '../repositories/repositories.service.ts';
import type { WebhooksContext } from '../webhooks/index.ts';
import { listSubscriptions, updateSubscription } from '../webhooks/webhooks.service.ts';
import { proxiesRoutes } from './proxies.routes.ts';
import {
  getProxy,
  listProxies,
  type ProxiesContext,
  ProxyCache,
  type ProxyReferenceHolder,
} from './proxies.service.ts';
import { getReverseProxy, type ReverseProxyContext } from './reverse-proxy.service.ts';

export type { ProxiesContext } from './proxies.service.ts';

/**
 * Outbound forward proxies, editable at run time, and the reverse proxy settings (issue 15). The
 * proxies become the outbound client's resolver: a request names a proxy key, or takes the default
 * (the proxy marked default, else GRANARY_OUTBOUND_PROXY), or none. Deleting a proxy clears it from
 * the remote repositories and webhooks that named it (Artifactory's behaviour).
 */
export async function registerProxies(
  app: FastifyInstance,
  platform: Platform,
  access: AccessModule,
  users: { repositories: RepositoriesContext; webhooks: WebhooksContext },
): Promise<ProxiesContext> {
  const cache = new ProxyCache(platform.database.db, platform.secrets, platform.now);
  platform.outbound.setProxyResolver(cache);
  const { repositories, webhooks } = users;
  const holders: ProxyReferenceHolder[] = [
    {
      kind: 'repository',
      async clear(key, caller) {
        const named = (await listRepositories(repositories.db, { rclass: 'remote' })).filter(
          (r) => r.remote?.proxy === key,
        );
        for (const repo of named)
          await updateRepositoryConfig(
            repositories.db,
            repositories.formats,
            repo.key,
            { proxy: '' },
            caller.name ?? 'system',
          );
        return named.map((r) => r.key);
      },
    },
    {
      kind: 'webhook',
      async clear(key, caller) {
        const named = (await listSubscriptions(webhooks)).filter((s) =>
          s.handlers.some((h) => h.proxy === key),
        );
        for (const s of named)
          await updateSubscription(
            webhooks,
            s.key,
            {
              ...s,
              handlers: s.handlers.map((h) => (h.proxy === key ? { ...h, proxy: null } : h)),
            } as unknown as Parameters<typeof updateSubscription>[2],
            caller,
          );
        return named.map((s) => s.key);
      },
    },
  ];
  const ctx: ProxiesContext = {
    db: platform.database.db,
    secrets: platform.secrets,
    cache,
    holders,
    audit: (entry) => access.context.audit.record({ ...entry, result: 'success' }),
  };
  const base = platform.config.baseUrl ? new URL(platform.config.baseUrl).hostname : undefined;
  const rp: ReverseProxyContext = {
    db: platform.database.db,
    defaultUpstream: `http://127.0.0.1:${platform.config.port || 8080}`,
    ...(base && !base.startsWith('[') && !/^[\d.]+$/.test(base) ? { defaultServerName: base } : {}),
    dockerRepositories: async () =>
      (await listRepositories(repositories.db, { packageType: 'docker' }, repositories.formats)).map(
        (r) => r.key,
      ),
  };
  await app.register(proxiesRoutes(ctx, rp));
  // Support bundles carry the proxies (never a password) and the reverse proxy settings.
  app.system.support.registerSupportSource('proxies', async () => ({
    proxies: await listProxies(ctx),
    reverseProxy: await getReverseProxy(rp),
  }));
  // A remote repository may name only a configured proxy (webhooks are checked by their own module).
  repositories.checkProxyKey = async (key) => {
    await getProxy(ctx, key).catch((err) => {
      throw err instanceof NotFoundError ? new InvalidError(`proxy: no proxy is named '${key}'`) : err;
    });
  };
  return ctx;
}
