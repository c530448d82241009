import { HistoryOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Dropdown, Input, type InputRef, Select, Space, Tooltip } from 'antd';
import { type Ref, useEffect, useId, useMemo, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { type RecentSearch, readRecentSearches, storeRecentSearch } from '../recentSearches.ts';
import { keepOnlyName, PACKAGE_SEARCH_TOO_SHORT } from '../searchSyntax.ts';
import {
  availableSearchTypes,
  effectiveSearchType,
  isReleaseBundlesPath,
  isSearchDisabled,
  PROJECT_SEARCH_TYPES,
  SEARCH_TYPE_LABELS,
  type SearchContext,
  type SearchType,
  searchResultsPath,
} from '../searchTypes.ts';

/**
 * spec 001 §2 and §4 toolbar search: the types this instance offers (the others hidden; a type that is not
 * available falls back to packages, or to the first type offered where packages is not), the §5 text syntax,
 * recent searches per user, each type's results route.
 */
export function ToolbarSearch({ inputRef }: { inputRef?: Ref<InputRef> }) {
  const session = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const ctx: SearchContext = {
    lightweight: session.generalConfig?.flavour.lightweight ?? false,
    microservices: session.microservices,
    entitlements: session.entitlements?.entitlements ?? {},
    features: session.features,
    admin: session.user?.admin ?? false,
  };
  const types = availableSearchTypes(ctx);
  const [chosen, setChosen] = useState<SearchType>('packages');
  const type = effectiveSearchType(chosen, ctx);
  const [text, setText] = useState('');
  const username = session.user?.name ?? null;
  const [recent, setRecent] = useState<RecentSearch[]>(() => readRecentSearches(localStorage, username));
  useEffect(() => setRecent(readRecentSearches(localStorage, username)), [username]);
  const onBundles = isReleaseBundlesPath(location.pathname);
  useEffect(() => {
    if (onBundles) setChosen('releaseBundles');
  }, [onBundles]);

  const inProject = session.selectedProject !== null;
  const disabled = isSearchDisabled(type, text, false, inProject);
  // issue 22: why Enter does nothing, said under the field while it has the focus (never silently nothing)
  const hint =
    text.trim() === '' || !disabled
      ? null
      : inProject && !PROJECT_SEARCH_TYPES.includes(type)
        ? `${SEARCH_TYPE_LABELS[type]} search is not available while a project is selected`
        : PACKAGE_SEARCH_TOO_SHORT;
  const [focused, setFocused] = useState(false);
  const hintId = useId();
  const run = (value: string, as: SearchType = type) => {
    const searchType = effectiveSearchType(as, ctx);
    if (isSearchDisabled(searchType, value, false, inProject)) return;
    const queryString = value.trim();
    setRecent(
      storeRecentSearch(localStorage, username, {
        id: `${Date.now()}`,
        type: searchType,
        queryString,
        context: session.selectedProject,
      }),
    );
    navigate(searchResultsPath(searchType, queryString));
  };
  const options = useMemo(
    () =>
      recent.map((r) => ({
        key: `${r.type}\u0000${r.queryString}`,
        label: `${r.queryString} — ${SEARCH_TYPE_LABELS[r.type] ?? r.type}`,
      })),
    [recent],
  );

  return (
    <Space.Compact style={{ width: '100%' }}>
      {types.length > 1 && (
        <Select
          aria-label="Search type"
          className="toolbar-search-type"
          value={type}
          style={{ width: 130 }}
          popupMatchSelectWidth={false}
          onChange={(t: SearchType) => {
            // spec 001 §4: switching the type resets the model except the name.
            if (t !== type) setText((current) => keepOnlyName(current));
            setChosen(t);
          }}
          options={types.map((t) => ({ value: t, label: SEARCH_TYPE_LABELS[t] }))}
        />
      )}
      <Tooltip open={hint !== null && focused} placement="bottomLeft" title={<span id={hintId}>{hint}</span>}>
        <Input
          ref={inputRef}
          aria-label="Search"
          placeholder={`Search ${SEARCH_TYPE_LABELS[type].toLowerCase()}`}
          prefix={<SearchOutlined aria-hidden />}
          allowClear
          value={text}
          onChange={(e) => setText(e.target.value)}
          onPressEnter={() => run(text)}
          onFocus={() => setFocused(true)}
          onBlur={() => setFocused(false)}
          aria-invalid={hint !== null ? true : undefined}
          aria-describedby={hint !== null && focused ? hintId : undefined}
        />
      </Tooltip>
      <Dropdown
        trigger={['click']}
        placement="bottomRight"
        disabled={recent.length === 0}
        menu={{
          items: options,
          onClick: ({ key }) => {
            const [t, q = ''] = key.split('\u0000');
            setText(q);
            setChosen(t as SearchType);
            run(q, t as SearchType);
          },
        }}
      >
        <Button
          className="toolbar-search-recent"
          aria-label="Recent searches"
          icon={<HistoryOutlined aria-hidden />}
        />
      </Dropdown>
    </Space.Compact>
  );
}
