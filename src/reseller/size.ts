// Plan sizes as the reseller writes them: "500" (megabytes), "500MB", "1GB", "1.5GB", "1.0GB", "2TB".

const SIZE = /^\s*(\d+(?:\.\d+)?)\s*(MB|GB|TB|M|G|T)?\s*$/i;
const MB_PER_UNIT: Record<string, number> = {
  M: 1,
  MB: 1,
  G: 1024,
  GB: 1024,
  T: 1024 * 1024,
  TB: 1024 * 1024,
};

/** Megabytes for a size text, or null when the text is not a size we can read (kept as text by callers). */
export function parseSizeMb(text: string): number | null {
  const match = SIZE.exec(text);
  if (!match) return null;
  const unit = (match[2] ?? "MB").toUpperCase();
  const mb = Number(match[1]) * (MB_PER_UNIT[unit] ?? 1);
  return Number.isFinite(mb) ? Math.round(mb) : null;
}

/** "1GB" for 1024, "1.5GB" for 1536, "500MB" for 500. */
export function formatSizeMb(mb: number): string {
  if (mb >= 1024 && mb % 1024 === 0) return `${mb / 1024}GB`;
  if (mb >= 1024) return `${Number((mb / 1024).toFixed(2))}GB`;
  return `${mb}MB`;
}
