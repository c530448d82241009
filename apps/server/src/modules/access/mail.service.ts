import type { MailSettings } from '@granary/contracts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Whether the security settings name a mail server to send through. */
export function mailConfigured(settings: MailSettings): boolean {
  return settings.enabled && settings.host.trim() !== '';
}

/** Sends one mail through the SMTP server of the security settings (STARTTLS when offered, or SMTPS). */
export async function sendMail(settings: MailSettings, mail: Mail): Promise<void> {
  // Loaded on the first mail, not at start (issue 24, idle memory).
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    auth: settings.username ? { user: settings.username, pass: settings.password ?? '' } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  try {
    await transport.sendMail({ from: settings.from, to: mail.to, subject: mail.subject, text: mail.text });
  } finally {
    transport.close();
  }
}
