// How numbers are written on the pages (raw values stay in data-value).

const UNITS = ['', 'K', 'M', 'G', 'T', 'P'];

function scaled(n: number, base: number, unit: string): string {
  if (!Number.isFinite(n)) return '-';
  let i = 0;
  let v = Math.abs(n);
  while (v >= base && i < UNITS.length - 1) {
    v /= base;
    i++;
  }
  const s = i === 0 ? String(Math.round(v)) : v.toFixed(v < 10 ? 2 : 1);
  return `${n < 0 ? '-' : ''}${s} ${UNITS[i]}${unit}`;
}

export const bytes = (n: number) => scaled(n, 1024, 'B');
export const bps = (n: number) => scaled(n, 1000, 'bit/s');
export const count = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');

export function time(epochSec: number): string {
  if (!epochSec) return '-';
  return `${new Date(epochSec * 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

export function duration(sec: number): string {
  const s = Math.max(0, Math.round(sec));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h ? `${h}h ${m}m` : m ? `${m}m ${s % 60}s` : `${s}s`;
}

/** '<ip>@<vlan>' when the VLAN is not 0, as ntopng writes host keys */
export const hostKey = (ip: string, vlan: number) => (vlan ? `${ip}@${vlan}` : ip);
