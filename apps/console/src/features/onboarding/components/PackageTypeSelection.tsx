import { SEARCH_DEBOUNCE_MS } from '@granary/contracts';
import { Button, Card, Empty, Flex, Input, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { PackageTypeIcon } from '../../../shared/components/PackageTypeIcon.tsx';
import { filterTypes, orderTypes, typeIcon, typeLabel } from '../quickStartFlows.ts';

/**
 * spec 000 §4 selection screen: title, subtitle, the matching-repositories text, the search box (500 ms debounce,
 * case-insensitive pattern match on the type value) and the grid of registered package types. Choosing the active
 * type again deselects it; each card's Create stays disabled until its type is the chosen one.
 */
export function PackageTypeSelection({
  types,
  selected,
  onSelect,
  onCreate,
}: {
  types: readonly { type: string }[];
  selected: string | null;
  onSelect: (type: string | null) => void;
  onCreate: (type: string) => void;
}) {
  const [typed, setTyped] = useState('');
  const [search, setSearch] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setSearch(typed), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [typed]);
  const shown = filterTypes(orderTypes(types), search);
  return (
    <Flex vertical gap="middle">
      <div>
        <Typography.Title level={2} style={{ marginBottom: 4 }}>
          Welcome to the product
        </Typography.Title>
        <Typography.Title level={3} style={{ marginTop: 0, fontSize: 16 }} type="secondary">
          Select a package type
        </Typography.Title>
        <Typography.Paragraph>
          We will create a local, a remote and a virtual repository for the package type you choose, ready for
          your client.
        </Typography.Paragraph>
      </div>
      <Input.Search
        placeholder="Search For a Package"
        aria-label="Search For a Package"
        allowClear
        value={typed}
        onChange={(e) => setTyped(e.target.value)}
        style={{ maxWidth: 360 }}
      />
      {shown.length === 0 ? (
        <Empty
          description={
            <>
              <div>Sorry, we couldn't find any matching package types</div>
              <Typography.Text type="secondary">Please try to change your search</Typography.Text>
            </>
          }
        />
      ) : (
        <ul className="quick-start-grid" aria-label="Package types">
          {shown.map(({ type }) => {
            const active = selected === type;
            return (
              <li key={type} data-testid={`quick-start-type-${type}`}>
                <Card
                  size="small"
                  className={active ? 'quick-start-card quick-start-card-active' : 'quick-start-card'}
                >
                  <Flex vertical align="center" gap="small">
                    <button
                      type="button"
                      className="quick-start-card-choose"
                      aria-pressed={active}
                      onClick={() => onSelect(active ? null : type)}
                    >
                      <PackageTypeIcon icon={typeIcon(type)} size={36} />
                      <span>{typeLabel(type)}</span>
                    </button>
                    <Button
                      type="primary"
                      size="small"
                      disabled={!active}
                      onClick={() => onCreate(type)}
                      aria-label={`Create ${typeLabel(type)} repositories`}
                    >
                      Create
                    </Button>
                  </Flex>
                </Card>
              </li>
            );
          })}
        </ul>
      )}
    </Flex>
  );
}
