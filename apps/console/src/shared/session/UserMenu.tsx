import { DownOutlined, LogoutOutlined, UserOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Dropdown, type MenuProps } from 'antd';
import { Link, useLocation, useNavigate } from 'react-router';
import { currentUserQueryOptions } from './queries.ts';

export const PROFILE_PATH = '/admin/artifactory/user_profile';

/**
 * spec 000 §2 user menu (the part this issue needs): the signed-in name with Edit Profile and Logout; a sign-in
 * link for a visitor. The full menu (new repository, new user, …) comes with the shell.
 */
export function UserMenu() {
  const user = useQuery(currentUserQueryOptions());
  const navigate = useNavigate();
  const location = useLocation();
  if (user.isPending || user.isError) return null;
  if (!user.data) {
    const here = `${location.pathname}${location.search}`;
    const to = here === '/' ? '/login' : `/login?${new URLSearchParams({ redirectTo: here })}`;
    return (
      <Link to={to} className="user-menu-login">
        Sign in
      </Link>
    );
  }
  const items: MenuProps['items'] = [
    ...(user.data.admin
      ? [
          { key: '/admin/repositories/local/new', label: 'New Local Repository' },
          { key: '/admin/repositories/remote/new', label: 'New Remote Repository' },
          { key: '/admin/repositories/virtual/new', label: 'New Virtual Repository' },
          { key: '/admin/management/users/new', label: 'New User' },
          { key: '/admin/management/groups/new', label: 'New Group' },
          { key: '/admin/management/permissions/create', label: 'New Permission' },
          { type: 'divider' as const },
        ]
      : []),
    { key: PROFILE_PATH, label: 'Edit Profile', icon: <UserOutlined /> },
    { key: '/logout', label: 'Logout', icon: <LogoutOutlined /> },
  ];
  return (
    <Dropdown
      trigger={['click']}
      placement="bottomRight"
      menu={{ items, onClick: ({ key }) => navigate(key) }}
    >
      <Button type="text">
        <UserOutlined aria-hidden />
        <span>{user.data.name}</span>
        <DownOutlined aria-hidden style={{ fontSize: 10 }} />
      </Button>
    </Dropdown>
  );
}
