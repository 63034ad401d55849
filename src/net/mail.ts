import nodemailer from 'nodemailer';

/** Sends plain-text e-mail through the operator's SMTP server. */
export interface Mailer {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
}

/** Where and as whom mail goes out (KGATE_SMTP_URL, KGATE_SMTP_FROM). */
export interface MailSettings {
  /** `smtp://user:password@host:587` (STARTTLS when the server offers it) or `smtps://...:465` (TLS from the start). */
  url: string;
  from: string;
}

/**
 * A mailer over nodemailer's SMTP transport, bounded like every outbound call: 10 s to connect and to be greeted,
 * 20 s of silence on the socket at most. The server is the operator's own, so private addresses are allowed.
 */
export function createMailer(settings: MailSettings): Mailer {
  const transport = nodemailer.createTransport({ url: settings.url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
  return {
    async send(message) {
      await transport.sendMail({ from: settings.from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
