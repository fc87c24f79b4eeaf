// Answers whose route declares a response schema are written by a
// serializer compiled once from it (fast-json-stringify: the interface-data
// answer in a third of JSON.stringify's time); the same schema documents
// the answer in the OpenAPI document. Types come from the schema too
// (z.infer), so the handler cannot drift from what is serialized.
import fastJson from 'fast-json-stringify';
import { z } from 'zod';

import type { Version } from './route.js';

/** A zod schema as draft-07 JSON Schema (what fast-json-stringify and OpenAPI 3.1 read). */
export function jsonSchema(s: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...j } = z.toJSONSchema(s, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  return j;
}

/** The v1/v2 envelope around an answer's schema. */
export function envelopeSchema(rsp: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    properties: { rc: { type: 'integer' }, rc_str: { type: 'string' }, rc_str_hr: { type: 'string' }, rsp },
    required: ['rc', 'rc_str', 'rc_str_hr', 'rsp'],
    additionalProperties: false,
  };
}

/** The writer of a successful answer of one version (v0 bare, v1/v2 in the envelope). */
export function okSerializer(version: Version, s: z.ZodType): (body: unknown) => string {
  const rsp = jsonSchema(s);
  return fastJson(version === 'v0' ? rsp : envelopeSchema(rsp)) as (body: unknown) => string;
}
