import type { ThemeConfig } from 'antd';

/**
 * Brand colour and text colours chosen for WCAG AA contrast on white (antd's default secondary and tertiary
 * text, 45 % black, is 3.4:1; these are 7:1 and 5.7:1).
 */
export const theme: ThemeConfig = {
  cssVar: { key: 'granary' },
  token: {
    colorPrimary: '#0f766e',
    colorLink: '#0f766e',
    colorTextSecondary: 'rgba(0, 0, 0, 0.65)',
    colorTextTertiary: 'rgba(0, 0, 0, 0.6)',
    colorTextDescription: 'rgba(0, 0, 0, 0.6)',
    // The palette antd derives from this teal gives a grey selected background (#a8b5b2, 2.6:1 under the
    // brand colour): a light tint keeps selected menu and list items at 4.8:1.
    colorPrimaryBg: '#e6f4f1',
    colorPrimaryBgHover: '#cce8e2',
    colorBgLayout: '#f5f7f7',
    borderRadius: 8,
    fontFamily:
      "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', 'Noto Sans', 'DejaVu Sans', Arial, sans-serif",
  },
  components: {
    Layout: { headerBg: '#ffffff', headerHeight: 56, headerPadding: '0 24px', footerBg: 'transparent' },
  },
};
