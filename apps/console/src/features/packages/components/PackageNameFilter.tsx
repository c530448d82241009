import { Input } from 'antd';
import { useId, useState } from 'react';
import { meetsPackageSearchMinimum, PACKAGE_SEARCH_TOO_SHORT } from '../../search/searchSyntax.ts';

/**
 * The packages list's name filter: a name matches anywhere (prefix matches first, issue 22). spec 001 §5: a
 * term needs at least 3 characters once * and ? are removed — a shorter one is not searched, and the hint
 * under the field says why.
 */
export function PackageNameFilter({ value, onSearch }: { value: string; onSearch: (name: string) => void }) {
  const [text, setText] = useState(value);
  const hintId = useId();
  const tooShort = text.trim() !== '' && !meetsPackageSearchMinimum(text);
  return (
    <div className="packages-name-filter">
      <Input.Search
        aria-label="Package name"
        placeholder="Name (* and ? wildcards)"
        allowClear
        value={text}
        status={tooShort ? 'warning' : undefined}
        aria-describedby={tooShort ? hintId : undefined}
        style={{ width: 260 }}
        onChange={(e) => setText(e.target.value)}
        onSearch={(name) => {
          const term = name.trim();
          if (term === '' || meetsPackageSearchMinimum(term)) onSearch(term);
        }}
      />
      {tooShort && (
        <span id={hintId} className="packages-name-hint" role="status">
          {PACKAGE_SEARCH_TOO_SHORT}
        </span>
      )}
    </div>
  );
}
