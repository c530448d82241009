import { describe, expect, it } from 'vitest';
import { accountDisabled, escapeFilterValue, fillFilter, groupNameOf } from './ldap.ts';

describe('LDAP helpers (issue 20)', () => {
  it('issue 20: a user name is escaped in the search filter (RFC 4515), so it cannot widen or change it', () => {
    expect(escapeFilterValue('a*)(uid=*')).toBe('a\\2a\\29\\28uid=\\2a');
    expect(escapeFilterValue('back\\slash\0')).toBe('back\\5cslash\\00');
    expect(fillFilter('(&(objectClass=person)(uid={0}))', '*)(|(uid=*')).toBe(
      '(&(objectClass=person)(uid=\\2a\\29\\28|\\28uid=\\2a))',
    );
    expect(fillFilter('(member={0})', 'cn=Smith\\, John,ou=people')).toBe(
      '(member=cn=Smith\\5c, John,ou=people)',
    );
  });

  it('issue 20: disabled directory accounts are recognised (AD, OpenLDAP ppolicy, 389-ds, eDirectory, shadowExpire)', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(accountDisabled({ dn: 'x', userAccountControl: '514' }, now)).toBe(true);
    expect(accountDisabled({ dn: 'x', userAccountControl: '512' }, now)).toBe(false);
    expect(accountDisabled({ dn: 'x', pwdAccountLockedTime: '000001010000Z' }, now)).toBe(true);
    expect(accountDisabled({ dn: 'x', nsAccountLock: 'TRUE' }, now)).toBe(true);
    expect(accountDisabled({ dn: 'x', loginDisabled: 'TRUE' }, now)).toBe(true);
    expect(accountDisabled({ dn: 'x', shadowExpire: '1' }, now)).toBe(true);
    expect(accountDisabled({ dn: 'x', shadowExpire: String(Math.floor(now / 86_400_000) + 30) }, now)).toBe(
      false,
    );
    expect(accountDisabled({ dn: 'x', shadowExpire: '-1' }, now)).toBe(false);
    expect(accountDisabled({ dn: 'x' }, now)).toBe(false);
  });

  it('issue 20: a group DN maps to its first RDN value (memberOf values)', () => {
    expect(groupNameOf('cn=developers,ou=groups,dc=example,dc=test')).toBe('developers');
    expect(groupNameOf('CN=Domain Admins,CN=Users,DC=corp,DC=example')).toBe('Domain Admins');
    expect(groupNameOf('cn=Smith\\, John,ou=groups')).toBe('Smith, John');
  });
});
