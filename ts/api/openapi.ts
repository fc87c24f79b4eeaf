// The OpenAPI document, generated from the route table (served at
// /lua/rest/v2/openapi.json), so the table stays the one description.
import { z } from 'zod';

import { rcInfo } from './rc.js';
import { routeUrls, type RouteDef } from './route.js';
import { envelopeSchema, jsonSchema } from './serialize.js';

export function openapi(routes: RouteDef[]) {
  const paths: Record<string, unknown> = {};
  for (const r of routes) {
    const parameters = [
      ...(r.ifid ? [{ name: 'ifid', in: 'query', required: true, schema: { type: 'integer', minimum: 0 } }] : []),
      ...Object.entries(r.params).map(([name, schema]) => ({
        name,
        in: 'query',
        required: !(schema as z.ZodType).safeParse(undefined).success,
        schema: z.toJSONSchema(schema as z.ZodType, { io: 'output', unrepresentable: 'any' }),
      })),
    ];
    const errors: Record<string, unknown> = {};
    for (const rc of r.errors) {
      const i = rcInfo(rc);
      const key = String(i.http);
      const prev = errors[key] as { description: string } | undefined;
      const d = `rc ${rc} (${i.str})`;
      errors[key] = { description: prev ? `${prev.description}, ${d}` : d };
    }
    for (const { version, url } of routeUrls(r)) {
      const rsp = r.response?.[version];
      const ok = rsp ? { content: { 'application/json': { schema: version === 'v0' ? jsonSchema(rsp) : envelopeSchema(jsonSchema(rsp)) } } } : {};
      const responses = { '200': { description: 'rc 0 (OK)', ...ok }, ...errors };
      const op = {
        summary: r.summary,
        tags: [version],
        'x-permission': r.perm,
        parameters,
        responses,
      };
      paths[url] = { get: op, post: op };
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'flowgate monitoring API (ntopng-compatible)', version: '1' },
    components: { securitySchemes: { basic: { type: 'http', scheme: 'basic' }, token: { type: 'apiKey', in: 'header', name: 'Authorization' } } },
    security: [{ basic: [] }, { token: [] }],
    paths,
  };
}
