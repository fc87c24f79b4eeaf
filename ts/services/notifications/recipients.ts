// ⑧ Notification recipients (ntopng 5.x notifications/recipients.lua): an
// endpoint plus filters (alert categories, minimum severity) plus the
// type's recipient params, by id 0..63 (the lowest free id is reused). Kept
// in LMDB; implements the RecipientDirectory the pools side reads.
import type { Database } from 'lmdb';

import { CATEGORY } from '../alerts/catalogue.js';
import type { ConfigStore } from '../config-store.js';
import type { RecipientDirectory } from '../pools/types.js';
import type { Params } from './endpoints.js';

/** ntop_defines.h MAX_NUM_RECIPIENTS */
export const MAX_RECIPIENTS = 64;

/** checks.lua check_categories ids, in id order */
export const ALL_CATEGORIES: readonly number[] = Object.values(CATEGORY).sort((a, b) => a - b);

/** alert_severities.lua severity ids (debug 1 … emergency 8) */
export const SEVERITY_IDS: readonly number[] = [1, 2, 3, 4, 5, 6, 7, 8];
/** the minimum severity when none is given (recipients.lua default_builtin_minimum_severity: notice) */
export const DEFAULT_MIN_SEVERITY = 3;

export const BUILTIN_ENDPOINT_NAME = 'builtin_endpoint_alert_store_db';
export const BUILTIN_RECIPIENT_NAME = 'builtin_recipient_alert_store_db';

export interface RecipientRecord {
  recipient_id: number;
  endpoint_id: number;
  recipient_name: string;
  /** never empty: an empty list given means every category */
  check_categories: number[];
  minimum_severity: number;
  recipient_params: Params;
}

export class Recipients implements RecipientDirectory {
  private readonly byId = new Map<number, RecipientRecord>();

  private constructor(
    private readonly db: Database<RecipientRecord, string>,
    /** the endpoint ids that are builtin (for builtinIds) */
    private readonly isBuiltinEndpoint: (endpointId: number) => boolean,
  ) {
    for (const { value: r } of db.getRange()) {
      if (r && typeof r === 'object' && Number.isInteger(r.recipient_id) && r.recipient_id >= 0 && r.recipient_id < MAX_RECIPIENTS && typeof r.recipient_name === 'string') {
        this.byId.set(r.recipient_id, normalize(r));
      }
    }
  }

  static open(store: ConfigStore, isBuiltinEndpoint: (endpointId: number) => boolean): Recipients {
    return new Recipients(store.db<RecipientRecord>('notification_recipients'), isBuiltinEndpoint);
  }

  get(id: number): RecipientRecord | undefined {
    return this.byId.get(id);
  }

  list(): RecipientRecord[] {
    return [...this.byId.values()].sort((a, b) => a.recipient_id - b.recipient_id);
  }

  byName(name: string): RecipientRecord | undefined {
    for (const r of this.byId.values()) if (r.recipient_name === name) return r;
    return undefined;
  }

  /** recipients._assign_recipient_id: the smallest id not in use; undefined when all 64 are */
  freeId(): number | undefined {
    for (let i = 0; i < MAX_RECIPIENTS; i++) if (!this.byId.has(i)) return i;
    return undefined;
  }

  async put(r: RecipientRecord): Promise<void> {
    const n = normalize(r);
    await this.db.put(String(n.recipient_id), { ...n, recipient_params: { ...n.recipient_params } });
    this.byId.set(n.recipient_id, n);
  }

  async remove(id: number): Promise<void> {
    await this.db.remove(String(id));
    this.byId.delete(id);
  }

  // ── RecipientDirectory ───────────────────────────────────────────────

  exists(recipientId: number): boolean {
    return this.byId.has(recipientId);
  }

  describe(recipientId: number) {
    const r = this.byId.get(recipientId);
    return r && { recipient_name: r.recipient_name, recipient_check_categories: [...r.check_categories], recipient_minimum_severity: r.minimum_severity };
  }

  builtinIds(): number[] {
    return this.list().filter((r) => this.isBuiltinEndpoint(r.endpoint_id)).map((r) => r.recipient_id);
  }
}

function normalize(r: RecipientRecord): RecipientRecord {
  const cats = Array.isArray(r.check_categories) ? r.check_categories.filter((c) => ALL_CATEGORIES.includes(c)) : [];
  return {
    recipient_id: r.recipient_id,
    endpoint_id: r.endpoint_id,
    recipient_name: r.recipient_name,
    check_categories: cats.length ? [...new Set(cats)] : [...ALL_CATEGORIES],
    minimum_severity: SEVERITY_IDS.includes(r.minimum_severity) ? r.minimum_severity : DEFAULT_MIN_SEVERITY,
    recipient_params: Object.assign(Object.create(null), r.recipient_params ?? {}),
  };
}

/**
 * recipients_rest_utils.parse_check_categories, stricter: a comma list of
 * category ids ('' or absent: every category); an id that is not a category
 * is an error here (ntopng drops it silently, which could widen a filter).
 */
export function parseCategories(v: unknown): { ok: true; categories: number[] } | { ok: false; message: string } {
  if (v === undefined || v === null || (typeof v === 'string' && !v.trim())) return { ok: true, categories: [...ALL_CATEGORIES] };
  const parts = Array.isArray(v) ? v.map(String) : typeof v === 'string' || typeof v === 'number' ? String(v).split(',') : null;
  if (!parts) return { ok: false, message: 'recipient_check_categories must be a comma-separated list of category ids' };
  const out: number[] = [];
  for (const p of parts) {
    const t = p.trim();
    if (!t) continue;
    if (!/^\d+$/.test(t) || !ALL_CATEGORIES.includes(Number(t))) return { ok: false, message: `recipient_check_categories: '${t.slice(0, 32)}' is not a category id (${ALL_CATEGORIES.join(', ')})` };
    if (!out.includes(Number(t))) out.push(Number(t));
  }
  return { ok: true, categories: out.length ? out : [...ALL_CATEGORIES] };
}

/** recipients_rest_utils.parse_minimum_severity: a severity id (absent: notice); a bad one is an error. */
export function parseMinimumSeverity(v: unknown): { ok: true; severity: number } | { ok: false; message: string } {
  if (v === undefined || v === null || (typeof v === 'string' && !v.trim())) return { ok: true, severity: DEFAULT_MIN_SEVERITY };
  const t = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
  if (/^\d+$/.test(t) && SEVERITY_IDS.includes(Number(t))) return { ok: true, severity: Number(t) };
  return { ok: false, message: `recipient_minimum_severity must be a severity id (${SEVERITY_IDS.join(', ')})` };
}
