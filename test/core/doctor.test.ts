import { splitConflict } from '../../src/core/doctor';

describe('splitConflict', () => {
  it('takes both versions, and the base when the markers carry it (diff3)', () => {
    const text = '---\nid: x\n<<<<<<< HEAD\naccess_count: 2\n||||||| base\naccess_count: 1\n=======\naccess_count: 3\n>>>>>>> laptop\ntier: warm\n---\nbody\n';
    expect(splitConflict(text)).toEqual({
      ours: '---\nid: x\naccess_count: 2\ntier: warm\n---\nbody\n',
      base: '---\nid: x\naccess_count: 1\ntier: warm\n---\nbody\n',
      theirs: '---\nid: x\naccess_count: 3\ntier: warm\n---\nbody\n',
    });
    expect(splitConflict(text.replace('||||||| base\naccess_count: 1\n', ''))!.base).toBeNull();
  });

  it('is null without markers or with a block that does not close', () => {
    expect(splitConflict('---\nid: x\n---\n')).toBeNull();
    expect(splitConflict('<<<<<<< HEAD\na\n=======\nb\n')).toBeNull();
  });

  it('an opening marker is one only outside a block: inside one it is a line of that side', () => {
    // a memory's text that quotes a conflict: the inner <<<<<<< belongs to the side it is in
    const text = 'a\n<<<<<<< HEAD\nours\n<<<<<<< quoted\n=======\ntheirs\n<<<<<<< quoted too\n>>>>>>> laptop\nz\n';
    expect(splitConflict(text)).toEqual({ ours: 'a\nours\n<<<<<<< quoted\nz\n', theirs: 'a\ntheirs\n<<<<<<< quoted too\nz\n', base: null });
  });
});
