import { useQuery } from '@tanstack/react-query';
import { NamedListPage } from '../components/NamedListPage.tsx';
import { groupsQueryOptions, useDeleteGroupMutation } from '../queries.ts';

/** spec 000 §2 admin.management groups list. */
export function GroupsPage() {
  return (
    <NamedListPage
      title="Groups"
      noun="Group"
      createPath="/admin/management/groups/new"
      editBase="/admin/management/groups"
      query={useQuery(groupsQueryOptions())}
      remove={useDeleteGroupMutation()}
    />
  );
}
