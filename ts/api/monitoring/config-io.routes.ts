// Route declarations of configuration export / import / reset, every module
// in one place (config-io.ts): export v2 GET and v1 POST (either method is
// taken), import and reset v1 and v2, administrators only.
import { z } from 'zod';

import { str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { CONFIG_MODULES, exportConfig, importConfig, resetConfig, type ConfigModuleName } from './config-io.js';

const { NOT_GRANTED, INVALID_ARGUMENTS, INTERNAL_ERROR, BAD_CONTENT, CONFIGURATION_FILE_MISMATCH, PARTIAL_IMPORT } = RC;

/** a JSON document given as text (ntopng's `JSON` form field) or, in a JSON body, as the value itself */
const jsonText = () => z.preprocess((v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : v), z.string().max(1 << 22));

const WHAT: Record<ConfigModuleName, string> = {
  checks: 'the checks configuration (module scripts: the configset and the alert exclusions)',
  scripts: 'the checks configuration (module scripts)',
  active_monitoring: 'the active monitoring hosts (module active_monitoring: <measurement>@<host> → settings)',
  notifications: 'the notification endpoints with their recipients (module notifications)',
  snmp: 'the SNMP devices by address, with their add parameters (module snmp)',
  infrastructure: 'the infrastructure instances (module infrastructure)',
  pool: 'the pools with what they refer to (modules snmp, active_monitoring, notifications, scripts, pool)',
  all: 'every module at once (module all)',
};
/** ntopng's reset paths (rest/v1|v2/reset/<module>/config.lua; pool only in v2, served in both here) */
const RESETS: readonly ConfigModuleName[] = ['checks', 'active_monitoring', 'notifications', 'snmp', 'pool', 'infrastructure', 'all'];

export const configIoRoutes: RouteDef[] = CONFIG_MODULES.flatMap((m) => [
  ...(['v2', 'v1'] as const).map((v) =>
    route({
      path: `export/${m}/config`, versions: [v], method: v === 'v2' ? 'GET' : 'POST', perm: 'admin',
      summary: `Export of ${WHAT[m]}: rsp {version: "1.0", modules}; download (any value): the file alone`,
      params: { download: str(16).optional() }, errors: [NOT_GRANTED, INTERNAL_ERROR],
      handler: (ctx, p) => exportConfig(ctx, m, p),
    }),
  ),
  route({
    path: `import/${m}/config`, versions: ['v1', 'v2'], method: 'POST', perm: 'admin',
    summary: `Import of ${WHAT[m]} (JSON: the exported file, or the file as the JSON body); -27: a module missing; -28: applied in part (what was not is named)`,
    params: { JSON: jsonText().optional() },
    errors: [NOT_GRANTED, INVALID_ARGUMENTS, BAD_CONTENT, CONFIGURATION_FILE_MISMATCH, PARTIAL_IMPORT, INTERNAL_ERROR],
    handler: (ctx, p) => importConfig(ctx, m, p),
  }),
  ...(RESETS.includes(m)
    ? [
        route({
          path: `reset/${m}/config`, versions: ['v1', 'v2'], method: 'POST', perm: 'admin',
          summary: `Reset ${WHAT[m]} to the factory state`, params: {}, errors: [NOT_GRANTED, INTERNAL_ERROR],
          handler: (ctx) => resetConfig(ctx, m),
        }),
      ]
    : []),
]);
