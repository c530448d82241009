import { useQuery } from '@tanstack/react-query';
import { Flex, Skeleton, Typography } from 'antd';
import '../../../shared/styles/accessibleForms.css';
import { currentUserQueryOptions } from '../../../shared/session/queries.ts';
import { Profile } from '../components/Profile.tsx';

/** spec 000 §2 Edit Profile (/admin/artifactory/user_profile): e-mail, password, identity token, MFA. */
export function ProfilePage() {
  const user = useQuery(currentUserQueryOptions());
  return (
    <Flex vertical gap="large">
      <Typography.Title level={1} style={{ margin: 0, fontSize: 26 }}>
        Edit Profile
      </Typography.Title>
      {user.data ? <Profile user={user.data} /> : <Skeleton active />}
    </Flex>
  );
}
