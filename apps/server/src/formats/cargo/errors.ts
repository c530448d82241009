/** An error on the Cargo endpoint: answered as `{"errors":[{"detail":…}]}`, which cargo prints. */
export class CargoError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

export const cargoErrorBody = (message: string) => ({ errors: [{ detail: message }] });
