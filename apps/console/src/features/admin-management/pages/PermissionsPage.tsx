import { useQuery } from '@tanstack/react-query';
import { NamedListPage } from '../components/NamedListPage.tsx';
import { permissionsQueryOptions, useDeletePermissionMutation } from '../queries.ts';

/** spec 000 §2 admin.management permissions list. */
export function PermissionsPage() {
  return (
    <NamedListPage
      title="Permissions"
      noun="Permission"
      createPath="/admin/management/permissions/create"
      editBase="/admin/management/permissions"
      query={useQuery(permissionsQueryOptions())}
      remove={useDeletePermissionMutation()}
    />
  );
}
