import { DownOutlined, QuestionCircleOutlined, UserOutlined } from '@ant-design/icons';
import { Badge, Button, Dropdown, type InputRef, Layout, Menu, type MenuProps, Modal, Select } from 'antd';
import { type ReactNode, Suspense, useEffect, useRef, useState } from 'react';
import { Link, Outlet, useLocation, useMatches, useNavigate } from 'react-router';
import { OnboardingHost, runOnboardingAction } from '../features/onboarding/OnboardingHost.tsx';
import { ToolbarSearch } from '../features/search/components/ToolbarSearch.tsx';
import { KeyboardShortcutsTable } from '../shared/components/KeyboardShortcuts.tsx';
import { PageLoading } from '../shared/session/RequireSignIn.tsx';
import { useSession } from '../shared/session/SessionProvider.tsx';
import { pageTitle } from '../shared/session/shellContext.ts';
import { useIdleSessionCheck } from './guards.tsx';
import { InitialPasswordNotice } from './InitialPasswordNotice.tsx';
import { ShellLogo } from './ShellLogo.tsx';
import {
  documentationUrl,
  projectSettingsPath,
  type SidebarName,
  sidebarItems,
  sidebarNames,
  userMenuItems,
} from './shellRules.ts';

const SIDEBAR_TITLES: Record<SidebarName, string> = {
  application: 'Application',
  administration: 'Administration',
  projectSettings: 'Project settings',
};

function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

function useRouteTitle(): string | null {
  const matches = useMatches();
  for (let i = matches.length - 1; i >= 0; i--) {
    const handle = matches[i]?.handle as { title?: string } | undefined;
    if (handle?.title) return handle.title;
  }
  return null;
}

/**
 * spec 000 §2 main layout: top bar (logo, search box, help menu, user menu), the two sidebars, the content and
 * the footer with a logo. The page title is "{route title} - {server name}".
 */
export function ShellLayout() {
  const session = useSession();
  const location = useLocation();
  const search = useRef<InputRef>(null);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const routeTitle = useRouteTitle();
  const serverName = session.generalConfig?.serverName;
  useIdleSessionCheck(session.user !== null);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      // Esc closes the shortcuts dialog wherever focus is (the help menu keeps it after its click).
      if (event.key === 'Escape') setShortcutsOpen(false);
      if (isTyping(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === '/') {
        event.preventDefault();
        search.current?.focus();
      } else if (event.key === '?') {
        event.preventDefault();
        setShortcutsOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const ctx = session.shell;
  const showSidebars = session.user !== null || session.canUseConsole;
  const sidebars = sidebarNames(ctx)
    .map((name) => ({ name, items: sidebarItems(name, ctx) }))
    .filter((s) => s.items.length > 0);
  const selected = sidebars
    .flatMap((s) => s.items)
    .filter((item) => {
      const base = item.prefix ?? item.to;
      return location.pathname === base || (!item.exact && location.pathname.startsWith(`${base}/`));
    })
    .map((item) => item.key);

  const helpItems: MenuProps['items'] = [
    ...(session.generalConfig?.helpLinksEnabled !== false && session.features.helpLinks
      ? [
          {
            key: 'docs',
            label: (
              <a href={documentationUrl(ctx.flavour)} target="_blank" rel="noreferrer">
                Documentation
              </a>
            ),
          },
        ]
      : []),
    ...(session.features.educationCenter
      ? [{ key: 'learning', label: <Link to="/overview#learning-center">Learning Center</Link> }]
      : []),
    { key: 'shortcuts', label: 'Keyboard Shortcuts', onClick: () => setShortcutsOpen(true) },
  ];

  return (
    <Layout className="app-layout shell" style={{ minHeight: '100vh' }}>
      {routeTitle && <title>{pageTitle(routeTitle, serverName)}</title>}
      <Layout.Header className="app-header shell-header">
        <Link to="/" className="app-brand" aria-label={`${serverName || 'Granary'} home`}>
          <ShellLogo />
        </Link>
        <ProjectSelector />
        <div className="shell-search">
          <ToolbarSearch inputRef={search} />
        </div>
        <div className="shell-header-actions">
          <Dropdown trigger={['click']} placement="bottomRight" menu={{ items: helpItems }}>
            <Button type="text" aria-label="Help" icon={<QuestionCircleOutlined aria-hidden />} />
          </Dropdown>
          <ShellUserMenu />
        </div>
      </Layout.Header>
      <Layout hasSider>
        {showSidebars && sidebars.length > 0 && (
          <Layout.Sider width={220} theme="light" className="shell-sider" breakpoint="lg" collapsedWidth={0}>
            {sidebars.map((sidebar) => (
              <nav key={sidebar.name} aria-label={SIDEBAR_TITLES[sidebar.name]}>
                <div className="shell-sider-title">{SIDEBAR_TITLES[sidebar.name]}</div>
                <Menu
                  mode="inline"
                  selectedKeys={selected}
                  items={sidebar.items.map((item) => ({
                    key: item.key,
                    label: <Link to={item.to}>{item.label}</Link>,
                  }))}
                />
              </nav>
            ))}
          </Layout.Sider>
        )}
        <Layout className="shell-main">
          <InitialPasswordNotice />
          <Layout.Content className="app-content" id="main">
            <Suspense fallback={<PageLoading />}>
              <Outlet />
            </Suspense>
          </Layout.Content>
          <Layout.Footer className="app-footer shell-footer">
            <ShellLogo size={20} />
            <span>{session.generalConfig?.footer.text || 'Granary · self-hosted artifact repository'}</span>
          </Layout.Footer>
        </Layout>
      </Layout>
      <Modal
        title="Keyboard Shortcuts"
        open={shortcutsOpen}
        onCancel={() => setShortcutsOpen(false)}
        footer={null}
      >
        <KeyboardShortcutsTable />
      </Modal>
      <OnboardingHost />
    </Layout>
  );
}

const ALL_PROJECTS = '';

/**
 * spec 000 §2 top bar project selector: "All projects" or one of the projects the user sees. A project
 * administrator who selects a project gets the project settings sidebar (the two-sidebar rule).
 */
function ProjectSelector(): ReactNode {
  const session = useSession();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  if (!session.user || session.projects.length === 0) return null;
  // Issue 22: the project settings screens follow the URL's project (ProjectSettingsPage selects it), so choosing
  // in the selector there moves to the chosen project's screen, or away from project settings for all projects.
  const onProjectSettings = pathname.startsWith('/project-settings/');
  const onChange = (key: string) => {
    session.selectProject(key === ALL_PROJECTS ? null : key);
    if (!onProjectSettings) return;
    if (key === ALL_PROJECTS) navigate('/');
    else navigate(projectSettingsPath(key, pathname.endsWith('/members') ? 'members' : 'general'));
  };
  return (
    <Select
      className="shell-project-selector"
      aria-label="Project"
      value={session.selectedProject ?? ALL_PROJECTS}
      onChange={onChange}
      popupMatchSelectWidth={false}
      options={[
        { value: ALL_PROJECTS, label: 'All projects' },
        ...session.projects.map((p) => ({ value: p.project_key, label: p.display_name })),
      ]}
    />
  );
}

function ShellUserMenu(): ReactNode {
  const session = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  if (!session.user) {
    const here = `${location.pathname}${location.search}`;
    const to = here === '/' ? '/login' : `/login?${new URLSearchParams({ redirectTo: here })}`;
    return (
      <Link to={to} className="user-menu-login">
        Sign in
      </Link>
    );
  }
  const entries = userMenuItems(session.shell);
  const items: MenuProps['items'] = entries.map((item) => ({
    key: item.key,
    label: item.external ? (
      <a href={item.to} target="_blank" rel="noreferrer">
        {item.label}
      </a>
    ) : item.badge ? (
      <span>
        {item.label} <Badge count={item.badge} color="#0f766e" />
      </span>
    ) : (
      item.label
    ),
  }));
  const byKey = new Map(entries.map((item) => [item.key, item]));
  return (
    <Dropdown
      trigger={['click']}
      placement="bottomRight"
      menu={{
        items,
        onClick: ({ key }) => {
          const item = byKey.get(key);
          if (!item || item.external) return;
          if (item.to) navigate(item.to);
          else if (
            item.action === 'gettingStarted' ||
            item.action === 'quickRepositoryCreation' ||
            item.action === 'setMeUp'
          )
            runOnboardingAction(item.action, session.features.quickDeployLanding, navigate);
        },
      }}
    >
      <Button type="text">
        <UserOutlined aria-hidden />
        <span>{session.user.name}</span>
        <DownOutlined aria-hidden style={{ fontSize: 10 }} />
      </Button>
    </Dropdown>
  );
}
