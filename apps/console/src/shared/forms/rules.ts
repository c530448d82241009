import { z } from 'zod';

/** spec 001 §5: "Mandatory fields: 'This field is mandatory'". */
export const MANDATORY_MESSAGE = 'This field is mandatory';

export const mandatoryText = z.string().trim().min(1, MANDATORY_MESSAGE);
