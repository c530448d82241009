import { Breadcrumb } from 'antd';
import { Link, useParams } from 'react-router';
import { PackageDetails } from '../components/PackageDetails.tsx';
import { PackageList } from '../components/PackageList.tsx';
import { VersionDetails } from '../components/VersionDetails.tsx';
import { packagePath } from '../packageRules.ts';
import '../packages.css';

/**
 * spec 001 §2 /packages/:packageId?/:versionId? (breadcrumb Packages): three levels, the list, a package and a
 * version. Everything it loads is in the query cache under 'packages', which logout clears.
 */
export function PackagesPage() {
  const { packageId, versionId } = useParams();
  const name = packageId?.replace(/^[^:]+:\/\//, '');
  const crumbs = [
    { key: 'packages', title: packageId ? <Link to="/packages">Packages</Link> : 'Packages' },
    ...(packageId
      ? [{ key: 'package', title: versionId ? <Link to={packagePath(packageId)}>{name}</Link> : name }]
      : []),
    ...(versionId ? [{ key: 'version', title: versionId }] : []),
  ];
  return (
    <div className="packages-page">
      <Breadcrumb items={crumbs} />
      {!packageId && <h1 className="packages-title">Packages</h1>}
      {packageId && versionId ? (
        <VersionDetails packageId={packageId} versionId={versionId} />
      ) : packageId ? (
        <PackageDetails packageId={packageId} />
      ) : (
        <PackageList />
      )}
    </div>
  );
}
