import { useQuery } from '@tanstack/react-query';
import { Tag } from 'antd';
import { NamedListPage } from '../components/NamedListPage.tsx';
import { useDeleteUserMutation, usersQueryOptions } from '../queries.ts';

/** spec 000 §2 admin.management users list: search, sort by name, create, edit, delete. */
export function UsersPage() {
  return (
    <NamedListPage
      title="Users"
      noun="User"
      createPath="/admin/management/users/new"
      editBase="/admin/management/users"
      query={useQuery(usersQueryOptions())}
      remove={useDeleteUserMutation()}
      columns={[
        {
          title: 'Realm',
          dataIndex: 'realm',
          sorter: (a, b) => a.realm.localeCompare(b.realm),
          render: (realm: string) => <Tag>{realm}</Tag>,
        },
      ]}
    />
  );
}
