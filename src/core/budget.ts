import { dailyDate, dailyVisibility } from './daily';
import { safeRelativePath } from './ids';
import { LAYOUT, type Vault } from './vault';

/**
 * The context budget (SPEC §11, "context is a shared resource"): bytes and tokens of
 * everything an agent loads every turn (STATE.md, daily files of the last 7 days, and the
 * files named in `alwaysLoaded`), against the targets.
 */
export interface BudgetFile {
  path: string;
  bytes: number;
  tokens: number;
  note?: string;
}

export interface BudgetReport {
  files: BudgetFile[];
  total_bytes: number;
  total_tokens: number;
  state_bytes: number;
  state_target_bytes: number;
  total_target_bytes: number;
  over: string[];
}

export async function contextBudget(vault: Vault): Promise<BudgetReport> {
  const now = vault.now();
  const settings = vault.settings;
  const paths = [LAYOUT.state as string];
  for (const name of (await vault.ports.files.list(LAYOUT.daily)).sort()) {
    const date = dailyDate(name);
    if (date && dailyVisibility(date, now, settings.tierDays) === 'session') paths.push(`${LAYOUT.daily}/${name}`);
  }
  for (const extra of settings.alwaysLoaded) paths.push(safeRelativePath(extra));
  const files: BudgetFile[] = [];
  for (const path of paths) {
    const text = await vault.readText(path);
    if (text === null) {
      if (path === LAYOUT.state) files.push({ path, bytes: 0, tokens: 0, note: 'missing' });
      else if (settings.alwaysLoaded.includes(path)) files.push({ path, bytes: 0, tokens: 0, note: 'missing' });
      continue;
    }
    const bytes = new TextEncoder().encode(text).length;
    const file: BudgetFile = { path, bytes, tokens: vault.ports.tokens.count(text) };
    if (path.startsWith(`${LAYOUT.daily}/`) && bytes > settings.dailyCompressBytes) file.note = 'over 20 KB: compress into memories';
    files.push(file);
  }
  const total_bytes = files.reduce((s, f) => s + f.bytes, 0);
  const state_bytes = files[0]!.bytes;
  const over: string[] = [];
  if (state_bytes > settings.stateTargetBytes) over.push(`${LAYOUT.state} is ${state_bytes} bytes, over the ${settings.stateTargetBytes}-byte target`);
  if (total_bytes > settings.alwaysLoadedTargetBytes) over.push(`always-loaded context is ${total_bytes} bytes, over the ${settings.alwaysLoadedTargetBytes}-byte target`);
  for (const f of files) if (f.note?.startsWith('over')) over.push(`${f.path} is ${f.bytes} bytes: ${f.note}`);
  return {
    files,
    total_bytes,
    total_tokens: files.reduce((s, f) => s + f.tokens, 0),
    state_bytes,
    state_target_bytes: settings.stateTargetBytes,
    total_target_bytes: settings.alwaysLoadedTargetBytes,
    over,
  };
}
