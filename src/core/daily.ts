import { WriteConflictError } from './errors';
import { renderFieldValue } from './frontmatter';
import { daysBetween, formatDay, parseTimestamp } from './time';
import { LAYOUT, type Vault } from './vault';

/**
 * Daily narrative logs (SPEC §11): `daily/YYYY-MM-DD.md`, never deleted. Their visibility
 * follows their age like tiers: 0-7 days loaded at session start, 8-21 searchable, 22-60
 * deep search, beyond that creative or explicit recall only.
 */
export type DailyVisibility = 'session' | 'searchable' | 'deep' | 'creative';

const DAILY_NAME = /^(\d{4}-\d{2}-\d{2})\.md$/;

export function dailyDate(name: string): string | null {
  const m = DAILY_NAME.exec(name);
  return m && parseTimestamp(m[1]!) !== null ? m[1]! : null;
}

export function dailyVisibility(date: string, now: number, tierDays: { active: number; warm: number; cold: number }): DailyVisibility {
  const days = Math.floor(Math.max(0, daysBetween(parseTimestamp(date)!, now)));
  if (days <= tierDays.active) return 'session';
  if (days <= tierDays.warm) return 'searchable';
  if (days <= tierDays.cold) return 'deep';
  return 'creative';
}

/** Append a line to today's (UTC) daily file, creating it with its frontmatter if needed. */
export async function appendDaily(vault: Vault, text: string): Promise<{ path: string; bytes: number; over_limit: boolean }> {
  const entry = text.trim();
  const now = vault.now();
  const day = formatDay(now);
  const path = `${LAYOUT.daily}/${day}.md`;
  const time = new Date(now).toISOString().slice(11, 16);
  const line = `- ${time} ${entry.replace(/\r?\n/g, '\n  ')}\n`;
  return vault.ports.locks.withLock(`daily-${day}`, async () => {
    for (;;) {
      const current = await vault.readText(path);
      const base = current ?? `---\ndate: ${renderFieldValue(day)}\n---\n# ${day}\n\n`;
      const next = base.length > 0 && !base.endsWith('\n') ? `${base}\n${line}` : base + line;
      try {
        await vault.ports.files.write(path, next, { expect: current });
        const bytes = new TextEncoder().encode(next).length;
        return { path, bytes, over_limit: bytes > vault.settings.dailyCompressBytes };
      } catch (error) {
        if (!(error instanceof WriteConflictError)) throw error;
      }
    }
  });
}
