import { useQuery } from '@tanstack/react-query';
import { Empty, Flex, Modal, Select, Typography } from 'antd';
import { useState } from 'react';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { SetMeUpTab } from '../../../shared/components/SetMeUpTab.tsx';
import { repositoriesQueryOptions } from '../../../shared/repositories/queries.ts';

/**
 * spec 000 §2 user menu "Set Me Up": choose one of the repositories the user can read (the server lists only
 * those), then its format's client configuration and snippets with the user's details (`GET ui/setMeUp`, the
 * same call as the tree browser's Set Me Up tab).
 */
export function SetMeUpDialog({
  open,
  initialRepo,
  onClose,
}: {
  open: boolean;
  initialRepo?: string;
  onClose: () => void;
}) {
  const repositories = useQuery({ ...repositoriesQueryOptions(), enabled: open });
  const [chosen, setChosen] = useState<string | undefined>(initialRepo);
  const repo = chosen ?? initialRepo;
  const close = () => {
    setChosen(undefined);
    onClose();
  };
  return (
    <Modal
      title="Set Me Up"
      open={open}
      onCancel={close}
      footer={null}
      width={760}
      destroyOnHidden
      data-testid="set-me-up-dialog"
    >
      <Flex vertical gap="middle">
        {repositories.isError && <ErrorAlert error={repositories.error} />}
        <Select
          aria-label="Repository"
          placeholder="Choose a repository"
          showSearch
          loading={repositories.isPending}
          value={repo}
          onChange={setChosen}
          options={(repositories.data ?? []).map((r) => ({
            value: r.key,
            label: `${r.key} (${r.packageType}, ${r.type.toLowerCase()})`,
          }))}
          style={{ width: '100%' }}
        />
        {repo ? (
          <SetMeUpTab repo={repo} />
        ) : (
          repositories.data?.length === 0 && <Empty description="There is no repository you can read yet" />
        )}
        {!repo && repositories.data && repositories.data.length > 0 && (
          <Typography.Text type="secondary">
            Choose a repository to see how to configure its client.
          </Typography.Text>
        )}
      </Flex>
    </Modal>
  );
}
