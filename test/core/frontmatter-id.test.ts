import { frontmatterId } from '../../src/core/memory-files';

/**
 * frontmatterId reads a memory's id from its top-level `id:` line without a YAML parse (finding a
 * memory among thousands). Each case states one part of that line's rule: anchored at the start
 * of a line, any spaces or tabs after the colon, the same quote (or none) on both sides, exactly
 * twelve id characters, then only spaces and a comment to the end of the line.
 */
const note = (yaml: string) => `---\n${yaml}\ncategory: semantic\n---\nBody text.\n`;

describe('frontmatterId', () => {
  it.each([
    ['id: mem-a1b2c3d4e5f6', 'mem-a1b2c3d4e5f6'],
    ['id:  "mem-a1b2c3d4e5f6"', 'mem-a1b2c3d4e5f6'],
    ["id:\t'mem-a1b2c3d4e5f6'   # kept by hand", 'mem-a1b2c3d4e5f6'],
    ['source_id: mem-zzzzzzzzzzzz\nid: mem-a1b2c3d4e5f6', 'mem-a1b2c3d4e5f6'],
  ])('reads %j', (yaml, id) => {
    expect(frontmatterId(note(yaml))).toBe(id);
  });

  it.each([
    'id: mem-a1b2c3d4e5f6g', // thirteen id characters
    'id: "mem-a1b2c3d4e5f6\'', // quotes that do not match
    'source_id: mem-a1b2c3d4e5f6', // another field ending in id
    'id: mem-A1B2C3D4E5F6', // capitals are not id characters
    'id: mem-a1b2c3d4e5f6 trailing words',
  ])('finds no id in %j', (yaml) => {
    expect(frontmatterId(note(yaml))).toBeNull();
  });
});
