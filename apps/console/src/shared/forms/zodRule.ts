import type { FormRule } from 'antd';
import type { z } from 'zod';

/**
 * An antd form rule that validates a field with a shared zod rule and shows the rule's own message (the spec's
 * exact text), so the console and the server refuse the same values with the same words.
 */
export function zodRule(schema: z.ZodType): FormRule {
  return {
    validator: async (_rule, value: unknown) => {
      const result = schema.safeParse(value ?? '');
      if (!result.success) throw new Error(result.error.issues[0]?.message ?? 'Invalid value');
    },
  };
}
