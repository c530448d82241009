import {
  SSO_SECRET_FIELDS,
  type SsoProvider,
  type SsoProviderType,
  type SsoProviderWrite,
  ssoProviderWriteSchema,
} from '@granary/contracts';
import type { z } from 'zod';

/**
 * The provider form's values and their mapping to the contract's write body (issue 20). The form uses the
 * contract's field names; the differences are the SAML metadata source switch and empty text meaning "not set".
 */
export type ProviderFormValues = Record<string, unknown> & {
  type: SsoProviderType;
  key: string;
  name: string;
  /** SAML: the identity provider's metadata comes from a URL or from uploaded / pasted XML. */
  metadataSource?: 'url' | 'xml';
};

export const TYPE_LABELS: Record<SsoProviderType, string> = {
  oidc: 'OpenID Connect',
  oauth2: 'OAuth 2.0',
  saml: 'SAML 2.0',
  ldap: 'LDAP / Active Directory',
  http: 'HTTP SSO (trusted proxy header)',
};

export const secretFieldsOf = (type: SsoProviderType): readonly string[] => SSO_SECRET_FIELDS[type];

/** A new provider of a type: the contract's defaults, off until the admin has tested it. */
export function emptyValues(type: SsoProviderType): ProviderFormValues {
  const parsed = ssoProviderWriteSchema.safeParse({
    type,
    key: 'x',
    name: 'x',
    issuer: 'https://x',
    authorizationUrl: 'https://x',
    tokenUrl: 'https://x',
    userInfoUrl: 'https://x',
    clientId: 'x',
    url: 'ldap://x',
    userSearchBase: 'x',
    idpMetadataUrl: 'https://x',
  });
  const defaults = (parsed.success ? parsed.data : {}) as Record<string, unknown>;
  const blank: Record<string, unknown> = {};
  for (const field of [
    'issuer',
    'authorizationUrl',
    'tokenUrl',
    'userInfoUrl',
    'clientId',
    'url',
    'userSearchBase',
    'idpMetadataUrl',
  ])
    if (field in defaults) blank[field] = '';
  return {
    ...defaults,
    ...blank,
    type,
    key: '',
    name: '',
    enabled: false,
    metadataSource: 'url',
  };
}

/** A stored provider as form values: secrets empty ("stored — type to replace"). */
export function valuesOf(provider: SsoProvider): ProviderFormValues {
  const values: Record<string, unknown> = { ...provider };
  delete values.createdAt;
  delete values.updatedAt;
  for (const field of Object.keys(values)) if (field.endsWith('Set')) delete values[field];
  if (provider.type === 'saml') values.metadataSource = provider.idpMetadataXml ? 'xml' : 'url';
  return values as ProviderFormValues;
}

const trimmed = (value: unknown) => (typeof value === 'string' ? value.trim() : value);

/** The write body of the form's values; empty optional text is "not set", an empty secret keeps the stored one. */
export function bodyOf(values: ProviderFormValues): SsoProviderWrite {
  const body: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(values)) {
    if (field === 'metadataSource' || value === undefined) continue;
    body[field] = trimmed(value);
  }
  for (const field of secretFieldsOf(values.type)) if (!body[field]) delete body[field];
  if (values.type === 'saml') {
    if (values.metadataSource === 'xml') body.idpMetadataUrl = null;
    else body.idpMetadataXml = null;
    for (const field of ['logoutUrl', 'spCertificatePem', 'idpMetadataUrl', 'idpMetadataXml'])
      if (body[field] === '') body[field] = null;
    if (body.spEntityId === '') delete body.spEntityId;
  }
  if (values.type === 'ldap' && body.tlsCaPem === '') body.tlsCaPem = null;
  for (const field of ['brand', 'emailHeader', 'groupsHeader']) if (body[field] === '') delete body[field];
  if (!body.isDefault) body.autoRedirect = false;
  return body as SsoProviderWrite;
}

/** The zod issues of a body as antd field errors (the contract's own messages). */
export function fieldErrorsOf(error: z.ZodError): { name: (string | number)[]; errors: string[] }[] {
  const byField = new Map<string, { name: (string | number)[]; errors: string[] }>();
  for (const issue of error.issues) {
    const name = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    const id = name.join('.');
    const entry = byField.get(id) ?? { name, errors: [] };
    entry.errors.push(issue.message);
    byField.set(id, entry);
  }
  return [...byField.values()];
}

/** Validates the body with the shared schema: the errors per field, or none. */
export function validate(values: ProviderFormValues) {
  const body = bodyOf(values);
  const result = ssoProviderWriteSchema.safeParse(body);
  return result.success ? { body, errors: [] } : { body, errors: fieldErrorsOf(result.error) };
}
