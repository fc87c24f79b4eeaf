// ⑧ The contract between pools (ts/services/pools) and notification
// recipients (ts/services/notifications): a pool of any kind holds
// recipient ids; an alert reaches the recipients of its entity's pool
// (ntopng 5.x: pools.lua, pools_alert_utils.lua, alert_entities.lua).
import type { AlertFamily } from '../alerts/types.js';

/** ntopng's pool kinds (pools/<kind>_pools.lua); 'network' is its local_network_pools */
export type PoolKind = 'interface' | 'host' | 'network' | 'snmp_device' | 'active_monitoring' | 'flow' | 'mac' | 'host_pool' | 'system';

export const POOL_KINDS: readonly PoolKind[] = ['interface', 'host', 'network', 'snmp_device', 'active_monitoring', 'flow', 'mac', 'host_pool', 'system'];

/** pools.lua DEFAULT_POOL_ID / DEFAULT_POOL_NAME: every kind has it, with no members */
export const DEFAULT_POOL_ID = 0;
export const DEFAULT_POOL_NAME = 'Default';

/** Which pool kind an alert family's entity belongs to (alert_entities.lua `pools`); flow alerts: 'flow' */
export const FAMILY_POOL_KIND: Record<AlertFamily | 'flow', PoolKind> = {
  interface: 'interface',
  host: 'host',
  network: 'network',
  snmp_device: 'snmp_device',
  flow: 'flow',
  mac: 'mac',
  user: 'system',
  am_host: 'active_monitoring',
  system: 'system',
};

/** What the recipients side asks of pools. */
export interface PoolDirectory {
  /** the pool (of the family's kind) an alert entity is in: DEFAULT_POOL_ID when none */
  poolOf(family: AlertFamily | 'flow', ifid: number, entityVal: string): number;
  /** the recipient ids bound to a pool (the default pool's when `poolId` does not exist) */
  recipientsOf(kind: PoolKind, poolId: number): number[];
  /** binds a recipient to every pool of every kind (a recipient added with bind_to_all_pools) */
  bindRecipientEverywhere(recipientId: number): Promise<void>;
  /** removes a recipient from every pool (a recipient deleted) */
  unbindRecipient(recipientId: number): Promise<void>;
  /** how many pools (of every kind) hold the recipient (get_recipients_endpoint's bind_to_pools); absent: the default pools are counted */
  poolsBoundTo?(recipientId: number): number;
}

/** What pools ask of the recipients side. */
export interface RecipientDirectory {
  /** a recipient with this id exists */
  exists(recipientId: number): boolean;
  /** the recipient's name and filters, as ntopng adds them to a pool's `recipients` entries; undefined when unknown */
  describe(recipientId: number): { recipient_name: string; recipient_check_categories: number[]; recipient_minimum_severity: number } | undefined;
  /** the builtin recipients (the default pools are created bound to them) */
  builtinIds(): number[];
}
