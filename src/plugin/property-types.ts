import { normalizePath, type App } from 'obsidian';

/**
 * The types of Engram's own fields, so Obsidian's Properties view shows numbers as numbers and
 * times as dates (Obsidian keeps them in `.obsidian/types.json`, one type per property name for
 * the whole vault). Only names that are Engram's own are registered: a generic name (`source`,
 * `category`, `tier`, `activation`, `confidence`, `amplitude`, `created_at`) is also a property
 * of the person's notes, and typing it would retype theirs; Obsidian's own `aliases` and `tags`
 * are typed by the app already. Only properties without a type yet are registered (a type the
 * person chose is kept), and only once the memory folder exists (see main.ts).
 */
export const PROPERTY_TYPES: Record<string, string> = {
  last_accessed_at: 'datetime',
  activation_at: 'datetime',
  access_count: 'number',
  half_life_days: 'number',
  is_error: 'checkbox',
  related_paths: 'multitext',
  agent_role: 'text',
  content_hash: 'text',
};

/** The running app's property type registry, as far as Engram uses it (not public API). */
interface TypeManager {
  types: Record<string, { type?: string } | undefined>;
  setType(name: string, type: string): unknown;
}

function typeManager(app: App): TypeManager | null {
  const manager = (app as unknown as { metadataTypeManager?: Partial<TypeManager> }).metadataTypeManager;
  return manager && typeof manager.setType === 'function' && typeof manager.types === 'object' && manager.types !== null ? (manager as TypeManager) : null;
}

/** Register the missing types: through the running app when it offers it, else in types.json. Returns those added. */
export async function registerPropertyTypes(app: App): Promise<string[]> {
  const manager = typeManager(app);
  if (manager) {
    const added = Object.keys(PROPERTY_TYPES).filter((name) => !manager.types[name]?.type);
    for (const name of added) manager.setType(name, PROPERTY_TYPES[name]!);
    return added;
  }
  const path = normalizePath(`${app.vault.configDir}/types.json`);
  const adapter = app.vault.adapter;
  const current: unknown = (await adapter.exists(path)) ? JSON.parse(await adapter.read(path)) : {};
  const json = typeof current === 'object' && current !== null && !Array.isArray(current) ? { ...(current as Record<string, unknown>) } : {};
  const types = typeof json.types === 'object' && json.types !== null ? { ...(json.types as Record<string, string>) } : {};
  const added = Object.keys(PROPERTY_TYPES).filter((name) => !types[name]);
  if (added.length === 0) return [];
  for (const name of added) types[name] = PROPERTY_TYPES[name]!;
  json.types = types;
  await adapter.write(path, `${JSON.stringify(json, null, 2)}\n`);
  return added;
}
