import { useQuery } from '@tanstack/react-query';
import { App, Checkbox, Flex, Modal, Typography } from 'antd';
import { useState } from 'react';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { targetsQueryOptions, useDistributeBundleMutation } from '../queries.ts';
import { NoDistributionNotice } from './NoDistributionNotice.tsx';

/** Issue 19: distribute a bundle to the chosen targets (other Granary instances); each reports its own status. */
export function DistributeBundleDialog({
  name,
  version,
  admin,
  onClose,
}: {
  name: string;
  version: string;
  admin: boolean;
  onClose: () => void;
}) {
  const { message } = App.useApp();
  const targets = useQuery(targetsQueryOptions());
  const [chosen, setChosen] = useState<string[]>([]);
  const distribute = useDistributeBundleMutation(name, version);
  return (
    <Modal
      open
      title={`Distribute ${name} ${version}`}
      okText="Distribute"
      okButtonProps={{ disabled: chosen.length === 0, loading: distribute.isPending }}
      onCancel={onClose}
      onOk={() =>
        distribute.mutate(
          { targets: chosen },
          {
            onSuccess: () => {
              message.success(`Distribution of ${name} ${version} started`);
              onClose();
            },
          },
        )
      }
    >
      <Flex vertical gap="middle">
        <NoDistributionNotice targets={targets.data} admin={admin} />
        {(targets.data?.length ?? 0) > 0 && (
          <>
            <Typography.Text>Targets</Typography.Text>
            <Checkbox.Group
              aria-label="Targets"
              value={chosen}
              onChange={(v) => setChosen(v.map(String))}
              options={(targets.data ?? []).map((t) => ({ value: t.name, label: `${t.name} (${t.url})` }))}
              style={{ display: 'flex', flexDirection: 'column', gap: 8 }}
            />
          </>
        )}
        {targets.error && <ErrorAlert error={targets.error} />}
        {distribute.error && <ErrorAlert error={distribute.error} />}
      </Flex>
    </Modal>
  );
}
