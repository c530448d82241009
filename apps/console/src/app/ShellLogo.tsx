import { GranaryLogo } from '../shared/components/GranaryLogo.tsx';
import { useSession } from '../shared/session/SessionProvider.tsx';
import { chooseLogo, type DefaultLogo } from './shellRules.ts';

/** spec 000 §4 logo choice: each licence family has its own default mark and name. */
const DEFAULT_LOGOS: Record<DefaultLogo, { name: string; colour: string }> = {
  JCR: { name: 'Granary Container Registry', colour: '#1d4ed8' },
  CONAN: { name: 'Granary for Conan', colour: '#6d28d9' },
  EDGE: { name: 'Granary Edge', colour: '#b45309' },
  OSS: { name: 'Granary OSS', colour: '#15803d' },
  DEFAULT: { name: 'Granary', colour: '#0f766e' },
};

export function ShellLogo({ size = 30 }: { size?: number }) {
  const session = useSession();
  const choice = chooseLogo({
    userLogo: session.generalConfig?.logoUrl,
    footerLogoUrl: session.generalConfig?.footer.logoUrl,
    licenseType: session.licenseType,
  });
  if (choice.kind === 'image') {
    return (
      <img
        src={choice.src}
        alt=""
        data-logo={choice.source}
        style={{ height: size, maxWidth: size * 5, objectFit: 'contain' }}
      />
    );
  }
  const logo = DEFAULT_LOGOS[choice.variant];
  return (
    <span className="shell-logo" data-logo={choice.variant}>
      <GranaryLogo size={size} colour={logo.colour} />
      {size >= 24 && <span className="app-brand-name">{logo.name}</span>}
    </span>
  );
}
