import {
  type SigningKey,
  type SigningKeyCreate,
  type SigningKeyImport,
  signingKeyCreateSchema,
  signingKeyImportSchema,
  type TrustedKey,
  type TrustedKeyCreate,
  trustedKeyCreateSchema,
} from '@granary/contracts';
import { asc, eq } from 'drizzle-orm';
import { ConflictError, InvalidError, NotFoundError } from '../../platform/errors.ts';
import { loadOpenpgp, type OpenPgp } from '../../platform/openpgp/index.ts';
import { openFor, registerSealedColumn, sealFor } from '../../platform/secrets/at-rest.ts';
import { type DistributionContext, uniqueViolation } from './context.ts';
import { signingKeys, trustedKeys } from './distribution.schema.ts';

registerSealedColumn({ table: 'signing_keys', key: 'name', column: 'private_key_sealed' });

type KeyRow = typeof signingKeys.$inferSelect;
type TrustedRow = typeof trustedKeys.$inferSelect;

export const keyIdOf = (key: OpenPgp.Key) => key.getKeyID().toHex().toUpperCase();
export const fingerprintOf = (key: OpenPgp.Key) => key.getFingerprint().toUpperCase();

export function algorithmOf(key: OpenPgp.Key): string {
  const info = key.getAlgorithmInfo() as { algorithm: string; bits?: number; curve?: string };
  return [info.algorithm, info.bits ?? info.curve].filter(Boolean).join(' ');
}

function toSigningKey(row: KeyRow): SigningKey {
  return {
    pairName: row.name,
    pairType: 'GPG',
    alias: row.alias,
    publicKey: row.publicKey,
    keyId: row.keyId,
    fingerprint: row.fingerprint,
    algorithm: row.algorithm,
    userId: row.userId,
    createdBy: row.createdBy,
    created: row.createdAt.toISOString(),
  };
}

function issues(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
}

/** Admins generate a GPG key pair here (openpgp: curve25519 EdDSA, or RSA 3072/4096). */
export async function generateSigningKey(
  ctx: DistributionContext,
  body: SigningKeyCreate,
  by: string,
): Promise<SigningKey> {
  const openpgp = await loadOpenpgp();
  const parsed = signingKeyCreateSchema.safeParse(body);
  if (!parsed.success) throw new InvalidError(issues(parsed.error));
  const input = parsed.data;
  await refuseTaken(ctx, input.pairName);
  const userIDs = [{ name: input.userName, email: input.email }];
  const generated =
    input.algorithm === 'curve25519'
      ? await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs, format: 'armored' })
      : await openpgp.generateKey({
          type: 'rsa',
          rsaBits: input.algorithm === 'rsa4096' ? 4096 : 3072,
          userIDs,
          format: 'armored',
        });
  return store(ctx, input.pairName, input.alias, generated.privateKey, by);
}

/** Admins import an armored GPG private key (with its passphrase when protected); stored unlocked, sealed. */
export async function importSigningKey(
  ctx: DistributionContext,
  body: SigningKeyImport,
  by: string,
): Promise<SigningKey> {
  const openpgp = await loadOpenpgp();
  const parsed = signingKeyImportSchema.safeParse(body);
  if (!parsed.success) throw new InvalidError(issues(parsed.error));
  const input = parsed.data;
  await refuseTaken(ctx, input.pairName);
  let key: OpenPgp.PrivateKey;
  try {
    key = await openpgp.readPrivateKey({ armoredKey: input.privateKey });
  } catch {
    throw new InvalidError('privateKey: not an armored OpenPGP private key');
  }
  if (!key.isDecrypted()) {
    if (!input.passphrase) throw new InvalidError('passphrase: the private key is protected by a passphrase');
    try {
      key = await openpgp.decryptKey({ privateKey: key, passphrase: input.passphrase });
    } catch {
      throw new InvalidError('passphrase: wrong passphrase for the private key');
    }
  }
  if (!(await key.getSigningKey().catch(() => null)))
    throw new InvalidError('privateKey: the key cannot sign');
  return store(ctx, input.pairName, input.alias, key.armor(), by);
}

async function refuseTaken(ctx: DistributionContext, name: string): Promise<void> {
  const [row] = await ctx.db
    .select({ name: signingKeys.name })
    .from(signingKeys)
    .where(eq(signingKeys.name, name));
  if (row) throw new ConflictError(`A signing key named '${name}' already exists`);
}

async function store(
  ctx: DistributionContext,
  name: string,
  alias: string | undefined,
  armoredPrivate: string,
  by: string,
): Promise<SigningKey> {
  const openpgp = await loadOpenpgp();
  const key = await openpgp.readPrivateKey({ armoredKey: armoredPrivate });
  const publicKey = key.toPublic().armor();
  try {
    const [row] = await ctx.db
      .insert(signingKeys)
      .values({
        name,
        alias: alias || name,
        keyId: keyIdOf(key),
        fingerprint: fingerprintOf(key),
        algorithm: algorithmOf(key),
        userId: key.getUserIDs()[0] ?? '',
        publicKey,
        privateKeySealed: sealFor(ctx.db, armoredPrivate),
        createdBy: by,
      })
      .returning();
    return toSigningKey(row!);
  } catch (err) {
    if (uniqueViolation(err)) throw new ConflictError(`A signing key named '${name}' already exists`);
    throw err;
  }
}

export async function listSigningKeys(ctx: DistributionContext): Promise<SigningKey[]> {
  return (await ctx.db.select().from(signingKeys).orderBy(asc(signingKeys.name))).map(toSigningKey);
}

async function keyRow(ctx: DistributionContext, name: string): Promise<KeyRow> {
  const [row] = await ctx.db.select().from(signingKeys).where(eq(signingKeys.name, name));
  if (!row) throw new NotFoundError(`Signing key '${name}' not found`);
  return row;
}

export async function getSigningKey(ctx: DistributionContext, name: string): Promise<SigningKey> {
  return toSigningKey(await keyRow(ctx, name));
}

export async function deleteSigningKey(ctx: DistributionContext, name: string): Promise<void> {
  const rows = await ctx.db.delete(signingKeys).where(eq(signingKeys.name, name)).returning();
  if (rows.length === 0) throw new NotFoundError(`Signing key '${name}' not found`);
}

/** The key's armored public key (targets register it as a trusted key). */
export async function publicKeyOf(ctx: DistributionContext, name: string): Promise<string> {
  return (await keyRow(ctx, name)).publicKey;
}

export interface Signature {
  keyName: string;
  keyId: string;
  fingerprint: string;
  armored: string;
}

/** A detached armored signature over `data` (binary, as `gpg --verify sig data` checks it). */
export async function signWith(ctx: DistributionContext, name: string, data: Buffer): Promise<Signature> {
  const openpgp = await loadOpenpgp();
  const row = await keyRow(ctx, name).catch(() => {
    throw new NotFoundError(`Unknown signing key '${name}'`);
  });
  const privateKey = await openpgp.readPrivateKey({ armoredKey: openFor(ctx.db, row.privateKeySealed) });
  const armored = (await openpgp.sign({
    message: await openpgp.createMessage({ binary: new Uint8Array(data) }),
    signingKeys: privateKey,
    detached: true,
    format: 'armored',
  })) as string;
  return { keyName: row.name, keyId: row.keyId, fingerprint: row.fingerprint, armored };
}

/** Whether `armoredSignature` is a good signature over `data` by `armoredPublicKey`. */
export async function verifyDetached(
  armoredPublicKey: string,
  data: Buffer,
  armoredSignature: string,
): Promise<boolean> {
  const openpgp = await loadOpenpgp();
  try {
    const verificationKeys = await openpgp.readKey({ armoredKey: armoredPublicKey });
    const result = await openpgp.verify({
      message: await openpgp.createMessage({ binary: new Uint8Array(data) }),
      signature: await openpgp.readSignature({ armoredSignature }),
      verificationKeys,
      format: 'binary',
    });
    if (result.signatures.length === 0) return false;
    for (const s of result.signatures) await s.verified;
    return true;
  } catch {
    return false;
  }
}

// ------------------------------------------------------------------ trusted keys

function toTrusted(row: TrustedRow): TrustedKey {
  return {
    kid: row.kid,
    alias: row.alias,
    fingerprint: row.fingerprint,
    public_key: row.publicKey,
    issued_on: row.issuedAt.toISOString(),
    issued_by: row.issuedBy,
  };
}

export async function listTrustedKeys(ctx: DistributionContext): Promise<TrustedKey[]> {
  return (await ctx.db.select().from(trustedKeys).orderBy(asc(trustedKeys.alias))).map(toTrusted);
}

export async function addTrustedKey(
  ctx: DistributionContext,
  body: TrustedKeyCreate,
  by: string,
): Promise<TrustedKey> {
  const openpgp = await loadOpenpgp();
  const parsed = trustedKeyCreateSchema.safeParse(body);
  if (!parsed.success) throw new InvalidError(issues(parsed.error));
  let key: OpenPgp.Key;
  try {
    key = await openpgp.readKey({ armoredKey: parsed.data.public_key });
  } catch {
    throw new InvalidError('public_key: not an armored OpenPGP public key');
  }
  if (key.isPrivate())
    throw new InvalidError('public_key: a private key was given; give the public key only');
  try {
    const [row] = await ctx.db
      .insert(trustedKeys)
      .values({
        kid: keyIdOf(key),
        alias: parsed.data.alias,
        fingerprint: fingerprintOf(key),
        publicKey: key.armor(),
        issuedBy: by,
      })
      .returning();
    return toTrusted(row!);
  } catch (err) {
    if (uniqueViolation(err)) throw new ConflictError('This key or alias is already trusted');
    throw err;
  }
}

export async function deleteTrustedKey(ctx: DistributionContext, kid: string): Promise<void> {
  const rows = await ctx.db.delete(trustedKeys).where(eq(trustedKeys.kid, kid.toUpperCase())).returning();
  if (rows.length === 0) throw new NotFoundError(`Trusted key '${kid}' not found`);
}

export async function trustedKeyById(ctx: DistributionContext, kid: string): Promise<string | null> {
  const [row] = await ctx.db.select().from(trustedKeys).where(eq(trustedKeys.kid, kid.toUpperCase()));
  return row?.publicKey ?? null;
}
