import { eq } from 'drizzle-orm';
import type { RepositorySigning } from '../../formats/sdk/format.ts';
import { InvalidError } from '../../platform/errors.ts';
import { loadOpenpgp } from '../../platform/openpgp/index.ts';
import { openFor, sealFor } from '../../platform/secrets/at-rest.ts';
import type { DistributionContext } from './context.ts';
import { signingKeys } from './distribution.schema.ts';
import { algorithmOf, fingerprintOf, keyIdOf } from './keys.ts';

/** The name of the key the server makes for a repository that names none (`primaryKeyPairRef`). */
export const repositoryKeyName = (repoKey: string) => `repo-${repoKey}`;

type KeyRow = typeof signingKeys.$inferSelect;

/**
 * A repository's signing key row: the named one, or the repository's own, generated on first use
 * (curve25519, which apt's gpgv and dnf's gpgme both verify). Several nodes may race to make it:
 * the insert does nothing on a taken name and every node then reads the one row that won.
 */
async function keyFor(ctx: DistributionContext, repoKey: string, named: string | undefined): Promise<KeyRow> {
  const name = named ?? repositoryKeyName(repoKey);
  const find = async () => (await ctx.db.select().from(signingKeys).where(eq(signingKeys.name, name)))[0];
  const found = await find();
  if (found) return found;
  if (named)
    throw new InvalidError(`Repository '${repoKey}' signs with key '${named}', which does not exist`);
  const openpgp = await loadOpenpgp();
  const generated = await openpgp.generateKey({
    type: 'ecc',
    curve: 'curve25519Legacy',
    userIDs: [{ name: `Granary repository ${repoKey}` }],
    format: 'object',
  });
  const key = generated.privateKey;
  await ctx.db
    .insert(signingKeys)
    .values({
      name,
      alias: name,
      keyId: keyIdOf(key),
      fingerprint: fingerprintOf(key),
      algorithm: algorithmOf(key),
      userId: key.getUserIDs()[0] ?? '',
      publicKey: key.toPublic().armor(),
      privateKeySealed: sealFor(ctx.db, key.armor()),
      createdBy: '_system',
    })
    .onConflictDoNothing();
  ctx.log.info({ repo: repoKey, key: name }, 'generated the repository signing key');
  const row = await find();
  if (!row) throw new Error(`The signing key '${name}' vanished as it was made`);
  return row;
}

/** Issue 23: `RepositoryHandle.signing` — OpenPGP signatures by a repository's key, its private half kept here. */
export function repositorySigning(
  ctx: DistributionContext,
  repoKey: string,
  keyName: string | undefined,
): RepositorySigning {
  const privateKey = async () =>
    (await loadOpenpgp()).readPrivateKey({
      armoredKey: openFor(ctx.db, (await keyFor(ctx, repoKey, keyName)).privateKeySealed),
    });
  return {
    publicKey: async () => (await keyFor(ctx, repoKey, keyName)).publicKey,
    fingerprint: async () => (await keyFor(ctx, repoKey, keyName)).fingerprint,
    async signDetached(data) {
      const openpgp = await loadOpenpgp();
      return (await openpgp.sign({
        message: await openpgp.createMessage({ binary: new Uint8Array(data) }),
        signingKeys: await privateKey(),
        detached: true,
        format: 'armored',
      })) as string;
    },
    async clearsign(text) {
      const openpgp = await loadOpenpgp();
      return openpgp.sign({
        message: await openpgp.createCleartextMessage({ text }),
        signingKeys: await privateKey(),
        format: 'armored',
      });
    },
  };
}
