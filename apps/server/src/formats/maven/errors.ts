/** An error answered to the Maven client (status, and the message as body and reason phrase). */
export class MavenError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** The reason phrase carries the message, so `mvn` shows why (printable ASCII only). */
export function reasonPhrase(message: string): string {
  return message.replace(/[^\x20-\x7e]/g, '?').slice(0, 300);
}
