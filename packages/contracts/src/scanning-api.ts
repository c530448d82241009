import { z } from 'zod';
import { xrayIgnoreRuleSchema } from './scanning.ts';

/**
 * Shapes of the scanning REST API (issue 16 "Console and API": the REST twins in OpenAPI) that the
 * console and the other contracts files do not name.
 */

/** `GET /xray/api/v1/ignore_rules` (Xray's JSON): a page of ignore rules and their number. */
export const xrayIgnoreRulesPageSchema = z.object({
  data: z.array(xrayIgnoreRuleSchema),
  total_count: z.number().int(),
});

/** `POST /api/scanning/advisories/import` as JSON: an OSV archive at a URL (through the outbound client) or a server path. */
export const advisoryImportRequestSchema = z.union([
  z.object({ url: z.string().url() }),
  z.object({ path: z.string().min(1) }),
]);

/** `GET /ui/api/v1/xray/ui/homepage/getXrayVersion`: the scanner is part of the product, so the product's version. */
export const xrayVersionSchema = z.object({ xray_version: z.string(), xray_revision: z.string() });
