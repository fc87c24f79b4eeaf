// ntopng's ways of writing times that more than one service uses.

/** ntopng's secondsToTime: "MM:SS", "HH:MM:SS", "N day(s), HH:MM:SS". */
export function secondsToTime(sec: number): string {
  sec = Math.max(0, Math.floor(sec));
  const d = Math.floor(sec / 86400), h = Math.floor((sec % 86400) / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
  const p = (n: number) => String(n).padStart(2, '0');
  const hms = h || d ? `${p(h)}:${p(m)}:${p(s)}` : `${p(m)}:${p(s)}`;
  return d ? `${d} day${d > 1 ? 's' : ''}, ${hms}` : hms;
}
