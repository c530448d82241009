/**
 * An error on the Terraform registry endpoints: answered as `{"errors":["…"]}`, the registry API's
 * error shape, which terraform prints after its own message.
 */
export class TerraformError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

export const terraformErrorBody = (message: string) => ({ errors: [message] });
