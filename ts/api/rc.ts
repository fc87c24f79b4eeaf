// Return codes of the monitoring API, chosen here and only here: the spec's
// rc, its rc_str, the HTTP status ntopng sends with it (rest_utils.lua), and
// rc_str_hr, ntopng's fixed text for the rc_str (rest_utils.rc: its English
// locale's rest_consts, "Unknown" where it has none). What went wrong in
// particular is said in rc_str_detail, flowgate's own field.

export const RC = {
  OK: 0,
  NOT_FOUND: -1,
  INVALID_INTERFACE: -2,
  NOT_GRANTED: -3,
  INVALID_HOST: -4,
  INVALID_ARGUMENTS: -5,
  INTERNAL_ERROR: -6,
  BAD_FORMAT: -7,
  BAD_CONTENT: -8,
  NAME_RESOLUTION_FAILED: -9,
  SNMP_DEVICE_ALREADY_ADDED: -10,
  SNMP_DEVICE_UNREACHABLE: -11,
  NO_SNMP_DEVICE_DISCOVERED: -12,
  ADD_POOL_FAILED: -13,
  EDIT_POOL_FAILED: -14,
  POOL_NOT_FOUND: -16,
  BIND_POOL_MEMBER_FAILED: -17,
  PASSWORD_MISMATCH: -19,
  ADD_USER_FAILED: -20,
  DELETE_USER_FAILED: -21,
  SNMP_UNKNOWN_DEVICE: -22,
  USER_ALREADY_EXISTING: -23,
  EDIT_USER_FAILED: -24,
  SNMP_DEVICE_INTERFACE_STATUS_CHANGE_FAILED: -26,
  CONFIGURATION_FILE_MISMATCH: -27,
  PARTIAL_IMPORT: -28,
  INFRASTRUCTURE_INSTANCE_NOT_FOUND: -32,
  INFRASTRUCTURE_INSTANCE_EMPTY_ID: -33,
  INFRASTRUCTURE_INSTANCE_EMPTY_ALIAS: -34,
  INFRASTRUCTURE_INSTANCE_EMPTY_URL: -35,
  INFRASTRUCTURE_INSTANCE_EMPTY_TOKEN: -36,
  INFRASTRUCTURE_INSTANCE_EMPTY_RTT_THRESHOLD: -37,
  INFRASTRUCTURE_INSTANCE_SAME_ALIAS: -39,
  INFRASTRUCTURE_INSTANCE_SAME_URL: -40,
  INFRASTRUCTURE_INSTANCE_SAME_TOKEN: -41,
  INFRASTRUCTURE_INSTANCE_ALREADY_EXISTING: -42,
  INFRASTRUCTURE_INSTANCE_EMPTY_BANDWIDTH_THRESHOLD: -47,
} as const;

export type Rc = (typeof RC)[keyof typeof RC];

interface RcInfo {
  str: string;
  http: number;
  /** what an error says when the code says it all */
  text: string;
}

/** ntopng's rc_str_hr per rc_str (scripts/locales/en.lua, rest_consts) */
const HR: Readonly<Record<string, string>> = {
  OK: 'Success',
  NOT_FOUND: 'Not found',
  INVALID_INTERFACE: 'Invalid interface',
  NOT_GRANTED: 'Not authorized',
  INVALID_HOST: 'Invalid host',
  INVALID_ARGUMENTS: 'Invalid arguments',
  INTERNAL_ERROR: 'Internal error',
  BAD_FORMAT: 'Bad format',
  BAD_CONTENT: 'Bad content',
  NAME_RESOLUTION_FAILED: 'Unable to resolve host name to an IP address',
  SNMP_DEVICE_ALREADY_ADDED: 'SNMP device already added',
  SNMP_DEVICE_UNREACHABLE: 'No answer from the SNMP device',
  NO_SNMP_DEVICE_DISCOVERED: 'No SNMP device discovered',
  ADD_POOL_FAILED: 'Unable to add a pool with the submitted params',
  EDIT_POOL_FAILED: 'Unable to edit a pool with the submitted params',
  DELETE_POOL_FAILED: 'Unable to delete a pool with the submitted params',
  POOL_NOT_FOUND: 'Pool not found',
  BIND_POOL_MEMBER_FAILED: 'Unable to bind the sumbitted member to the pool',
  BIND_POOL_MEMBER_ALREADY_BOUND: 'Unable to bind member which is already bound to another pool',
  SNMP_DEVICE_INTERFACE_STATUS_CHANGE_FAILED: 'SNMP device interface status change has failed',
  CONFIGURATION_FILE_MISMATCH: 'The uploaded file is not a valid configuration file!',
  PARTIAL_IMPORT: "The configuration has been imported successfully, but some elements were already present and haven't be replaced.",
  INFRASTRUCTURE_INSTANCE_ALREADY_EXISTING: 'Duplicated instance.',
  INFRASTRUCTURE_INSTANCE_EMPTY_ALIAS: 'The name of the instance cannot be empty.',
  INFRASTRUCTURE_INSTANCE_EMPTY_BANDWIDTH_THRESHOLD: 'The bandwidth threshold cannot be empty!',
  INFRASTRUCTURE_INSTANCE_EMPTY_ID: 'The ID of the instance cannot be empty.',
  INFRASTRUCTURE_INSTANCE_EMPTY_RTT_THRESHOLD: 'The RTT threshold cannot be empty!',
  INFRASTRUCTURE_INSTANCE_EMPTY_TOKEN: 'The token of the instance cannot be empty.',
  INFRASTRUCTURE_INSTANCE_EMPTY_URL: 'An URL of the instance must be defined.',
  INFRASTRUCTURE_INSTANCE_SAME_ALIAS: 'An instance with this alias already exists.',
  INFRASTRUCTURE_INSTANCE_SAME_TOKEN: 'An instance is already bound with this token.',
  INFRASTRUCTURE_INSTANCE_SAME_URL: 'An instance with this URL is already defined',
  POOL_ADDED_SUCCESSFULLY: 'Pool added successfully',
  POOL_DELETED_SUCCESSFULLY: 'Pool deleted successfully',
  POOL_EDITED_SUCCESSFULLY: 'Pool edited successfully',
  POOL_MEMBER_BOUND_SUCCESSFULLY: 'Pool member bound successfully',
};

/** A successful answer with one of ntopng's own success rc_str (rc 0), e.g. POOL_ADDED_SUCCESSFULLY. */
export class SuccessAnswer {
  constructor(
    readonly rcStr: string,
    readonly rsp: unknown,
  ) {}
}

/** rc_str_hr of an rc_str, as rest_utils.rc writes it */
export const rcStrHr = (rcStr: string): string => (Object.hasOwn(HR, rcStr) ? HR[rcStr]! : 'Unknown');

const INFO: Record<number, RcInfo> = {
  0: { str: 'OK', http: 200, text: 'Success' },
  [-1]: { str: 'NOT_FOUND', http: 404, text: 'Not found' },
  [-2]: { str: 'INVALID_INTERFACE', http: 400, text: 'Invalid interface' },
  [-3]: { str: 'NOT_GRANTED', http: 401, text: 'Not granted' },
  [-4]: { str: 'INVALID_HOST', http: 400, text: 'Invalid host' },
  [-5]: { str: 'INVALID_ARGUMENTS', http: 400, text: 'Invalid arguments' },
  [-6]: { str: 'INTERNAL_ERROR', http: 500, text: 'Internal error' },
  [-7]: { str: 'BAD_FORMAT', http: 400, text: 'Bad format' },
  [-8]: { str: 'BAD_CONTENT', http: 400, text: 'Bad content' },
  [-9]: { str: 'NAME_RESOLUTION_FAILED', http: 400, text: 'Name resolution failed' },
  [-10]: { str: 'SNMP_DEVICE_ALREADY_ADDED', http: 409, text: 'SNMP device already added' },
  [-11]: { str: 'SNMP_DEVICE_UNREACHABLE', http: 400, text: 'SNMP device unreachable' },
  [-12]: { str: 'NO_SNMP_DEVICE_DISCOVERED', http: 400, text: 'No SNMP device discovered' },
  [-13]: { str: 'ADD_POOL_FAILED', http: 409, text: 'Add pool failed' },
  [-14]: { str: 'EDIT_POOL_FAILED', http: 409, text: 'Edit pool failed' },
  [-16]: { str: 'POOL_NOT_FOUND', http: 409, text: 'Pool not found' },
  [-17]: { str: 'BIND_POOL_MEMBER_FAILED', http: 409, text: 'Bind pool member failed' },
  [-19]: { str: 'PASSWORD_MISMATCH', http: 400, text: 'Password mismatch' },
  [-20]: { str: 'ADD_USER_FAILED', http: 409, text: 'Add user failed' },
  [-21]: { str: 'DELETE_USER_FAILED', http: 409, text: 'Delete user failed' },
  [-22]: { str: 'SNMP_UNKNOWN_DEVICE', http: 400, text: 'Unknown SNMP device' },
  [-23]: { str: 'USER_ALREADY_EXISTING', http: 409, text: 'User already existing' },
  [-24]: { str: 'EDIT_USER_FAILED', http: 400, text: 'Edit user failed' },
  [-26]: { str: 'SNMP_DEVICE_INTERFACE_STATUS_CHANGE_FAILED', http: 400, text: 'SNMP interface status change failed' },
  [-27]: { str: 'CONFIGURATION_FILE_MISMATCH', http: 400, text: 'Configuration file mismatch' },
  [-28]: { str: 'PARTIAL_IMPORT', http: 409, text: 'Partial import' },
  // rest_utils.lua: 404 for not found, 409 for the others
  [-32]: { str: 'INFRASTRUCTURE_INSTANCE_NOT_FOUND', http: 404, text: 'Infrastructure instance not found' },
  [-33]: { str: 'INFRASTRUCTURE_INSTANCE_EMPTY_ID', http: 409, text: 'Empty instance id' },
  [-34]: { str: 'INFRASTRUCTURE_INSTANCE_EMPTY_ALIAS', http: 409, text: 'Empty instance alias' },
  [-35]: { str: 'INFRASTRUCTURE_INSTANCE_EMPTY_URL', http: 409, text: 'Empty instance URL' },
  [-36]: { str: 'INFRASTRUCTURE_INSTANCE_EMPTY_TOKEN', http: 409, text: 'Empty instance token' },
  [-37]: { str: 'INFRASTRUCTURE_INSTANCE_EMPTY_RTT_THRESHOLD', http: 409, text: 'Empty RTT threshold' },
  [-39]: { str: 'INFRASTRUCTURE_INSTANCE_SAME_ALIAS', http: 409, text: 'Same alias' },
  [-40]: { str: 'INFRASTRUCTURE_INSTANCE_SAME_URL', http: 409, text: 'Same URL' },
  [-41]: { str: 'INFRASTRUCTURE_INSTANCE_SAME_TOKEN', http: 409, text: 'Same token' },
  [-42]: { str: 'INFRASTRUCTURE_INSTANCE_ALREADY_EXISTING', http: 409, text: 'Instance already existing' },
  [-47]: { str: 'INFRASTRUCTURE_INSTANCE_EMPTY_BANDWIDTH_THRESHOLD', http: 409, text: 'Empty bandwidth threshold' },
};

export function rcInfo(rc: number): RcInfo {
  return INFO[rc] ?? INFO[-6];
}

/**
 * An answer other than OK. `rcStr` overrides the table's name where the spec
 * gives one code two names (-23: USER_DOES_NOT_EXIST when editing).
 */
export class ApiError extends Error {
  constructor(
    readonly rc: number,
    message?: string,
    readonly rcStr?: string,
  ) {
    super(message ?? rcInfo(rc).text);
  }
}

export const fail = (rc: number, message?: string, rcStr?: string): never => {
  throw new ApiError(rc, message, rcStr);
};

/**
 * The v1/v2 envelope: {rc, rc_str, rc_str_hr, rsp} as ntopng's, plus
 * rc_str_detail when the answer has more to say than the code's fixed text.
 */
export function envelope(rc: number, rsp: unknown, message?: string, rcStr?: string) {
  const i = rcInfo(rc);
  const str = rcStr ?? i.str, hr = rcStrHr(str);
  const detail = message !== undefined && message !== hr && message !== i.text ? { rc_str_detail: message } : {};
  return { rc, rc_str: str, rc_str_hr: hr, ...detail, rsp: rsp ?? [] };
}
