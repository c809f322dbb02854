/**
 * Which `file-open` events are a note being opened. Obsidian fires `file-open` on every change
 * of the active leaf (a tab switch, focus moving between split panes, the tab before a closed
 * one coming forward, a restored workspace), not only when a note is opened
 * (obsidianmd/obsidian-api#37). A note counts as opened when a leaf shows it and was not
 * showing it before; switching back to a leaf that already showed it is a re-activation.
 * Leaves restored from a saved layout (at start-up, or a workspace loaded later) are recorded
 * as already showing their notes: a restore opens nothing.
 *
 * Generic over the leaf type so that it is tested without Obsidian.
 */
export class NoteOpens<Leaf extends object> {
  /** The note each leaf showed when last seen (null: a leaf seen without a note yet). */
  private readonly shown = new WeakMap<Leaf, string | null>();

  /** Record what a leaf shows without counting it (start-up, restored layouts). */
  remember(leaf: Leaf, path: string | null): void {
    this.shown.set(leaf, path);
  }

  /** Whether the leaf has been seen before. */
  knows(leaf: Leaf): boolean {
    return this.shown.has(leaf);
  }

  /**
   * `file-open` in `leaf`, now showing `path`: true when this is the note newly shown in that
   * leaf (an open), false when the leaf already showed it (a re-activation).
   */
  opened(leaf: Leaf, path: string): boolean {
    if (this.shown.get(leaf) === path) return false;
    this.shown.set(leaf, path);
    return true;
  }

  /**
   * The layout changed: leaves not seen before are recorded. When some of them are deferred (a
   * restored layout keeps its background tabs unloaded until shown, Obsidian 1.7.2+), the change
   * is a restore and every new leaf is recorded with its note; otherwise new leaves are recorded
   * empty, so that the note a background tab shows counts when the user first looks at it.
   */
  layoutChanged(leaves: Array<{ leaf: Leaf; path: string | null; deferred: boolean }>): void {
    const fresh = leaves.filter((l) => !this.shown.has(l.leaf));
    const restore = fresh.some((l) => l.deferred);
    for (const l of fresh) this.shown.set(l.leaf, restore ? l.path : null);
  }
}
