import { checkedBefore, importLines, parseImport } from '../../src/core/import';
import { checkInput, normaliseInput } from '../../src/core/remember';
import { DEFAULT_SETTINGS } from '../../src/core/settings';
import { memoryVault } from '../helpers/memory-ports';

/**
 * An import checks each line once (parseImport), and importLines normalises the lines it
 * returned with what that check found; any other line, or one checked against another size
 * limit, is checked again.
 */
const NOW = '2026-11-30T12:00:00Z';
const JSONL = [
  '{"text":"  Padded text  ","category":"semantic","confidence":"verified","created_at":"2026-01-02T03:04:05.678Z","tags":["a b"," x ","x"],"related_paths":[" p "]}',
  '{"text":"Plain","session":7}',
  '{"text":"' + 'y'.repeat(9000) + '"}',
].join('\n');

describe('import: each line checked once', () => {
  it("keeps the check of every line it returns (frozen, lists too) and normalises them as the check would", () => {
    const lines = parseImport(JSONL, 'f.jsonl', 64 * 1024);
    const now = Date.parse(NOW);
    for (const line of lines) {
      expect(Object.isFrozen(line)).toBe(true);
      expect(checkedBefore(line, 64 * 1024)).toEqual(checkInput(line, 64 * 1024));
      expect(normaliseInput(line, now, 64 * 1024, checkedBefore(line, 64 * 1024))).toEqual(normaliseInput(line, now, 64 * 1024));
    }
    expect(Object.isFrozen(lines[0]!.tags)).toBe(true);
    expect(checkedBefore(lines[0]!, 64 * 1024)).toEqual({ text: 'Padded text', category: 'semantic', confidence: 'verified', createdMs: Date.parse('2026-01-02T03:04:05.678Z') });
    expect(() => {
      (lines[1] as { text: string }).text = '';
    }).toThrow(TypeError);
  });

  it('checks again a line checked against another limit, and a line it did not check', async () => {
    const lines = parseImport(JSONL, 'f.jsonl', 64 * 1024);
    // another limit than the one parseImport was given (64 KB): checked again, and this vault's 16 KB refuses the long line
    expect(checkedBefore(lines[2]!, DEFAULT_SETTINGS.maxFileBytes)).toBeUndefined();
    const { vault } = memoryVault(NOW, { maxFileBytes: 16 * 1024 });
    await expect(importLines(vault, lines)).rejects.toThrow('text: 9000 bytes, over the 8192-byte limit');
    expect(checkedBefore({ text: 'made by hand' }, DEFAULT_SETTINGS.maxFileBytes)).toBeUndefined();
    // parseImport without a limit checked against the default one (256 KB): used for a vault with the default
    const plain = parseImport('{"text":"ok"}', 'g.jsonl');
    expect(checkedBefore(plain[0]!, DEFAULT_SETTINGS.maxFileBytes)).toEqual({ text: 'ok', category: 'episodic', confidence: 'observed', createdMs: null });
  });
});
