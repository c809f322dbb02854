// What `forget --purge` looks for in other files (src/core/purge-traces.ts), in process: which
// pieces of a text are distinctive (long tokens, sentences, the start) and which a file holds.
// test/headless runs the purge itself through the CLI.
import { distinctiveFragments, fragmentsIn } from '../../src/core/purge-traces';

describe('distinctiveFragments', () => {
  it('tokens: a run of 16 letters or more, or of 8 or more holding a digit or symbol, without the quotes around it', () => {
    const f = distinctiveFragments(['Key "ghp_Zq81xK2" at (db-01.internal): plainwordsonly and abcdefghijklmnop, also short-1 and 1234567.']);
    expect(f.tokens).toEqual(['ghp_Zq81xK2', 'db-01.internal', 'abcdefghijklmnop']);
  });

  it('links and memory ids are not tokens', () => {
    expect(distinctiveFragments(['See [[mem-aaaaaaaaaaaa|related]] and mem-bbbbbbbbbbbb, (mem-cccccccccccc) [[Some-Note-2026]]']).tokens).toEqual([]);
  });

  it('sentences (ended by . ! ? or a line break) of 12 characters or more, white space folded, end punctuation dropped, each once ignoring case', () => {
    const f = distinctiveFragments(['Short one. The server \t runs at night!! Too small? the server runs at night. Backups rotate weekly\nOn call: the whole team']);
    expect(f.sentences).toEqual(['The server runs at night', 'Backups rotate weekly', 'On call: the whole team']);
    // a line break ends a piece: two halves of 10 and 13 characters
    expect(distinctiveFragments(['The server\nruns at night']).sentences).toEqual(['runs at night']);
  });

  it('a sentence that is a token is not listed again; the start (40 characters) only when no sentence is the same', () => {
    const f = distinctiveFragments(['api-key-0123456789abcdef', 'A long first sentence that goes on and on past forty characters. Then more.']);
    expect(f.tokens).toEqual(['api-key-0123456789abcdef']);
    // "Then more" is under 12 characters
    expect(f.sentences).toEqual(['A long first sentence that goes on and on past forty characters']);
    // the token's text is no sentence, so it is a start
    expect(f.starts).toEqual(['api-key-0123456789abcdef', 'A long first sentence that goes on and o']);
    // the whole text is one sentence of under 40 characters: the start is that sentence, not repeated
    expect(distinctiveFragments(['Deploys run on Fridays']).starts).toEqual([]);
    // a start under 12 characters does not count
    expect(distinctiveFragments(['Tiny text']).starts).toEqual([]);
    expect(distinctiveFragments(['Tiny text']).sentences).toEqual([]);
  });

  it('several texts (a body and its versions) are pooled, duplicates once', () => {
    const f = distinctiveFragments(['Rotate the token tok_99887766 monthly.', 'rotate the token tok_99887766 monthly', 'Rotate the token tok_99887766 monthly, says ops.']);
    expect(f.tokens).toEqual(['tok_99887766']);
    expect(f.sentences).toEqual(['Rotate the token tok_99887766 monthly', 'Rotate the token tok_99887766 monthly, says ops']);
    // a start is compared with the sentences as written (its full stop kept): only the second text's is one of them
    expect(f.starts).toEqual(['Rotate the token tok_99887766 monthly.', 'Rotate the token tok_99887766 monthly, s']);
  });
});

describe('fragmentsIn', () => {
  const f = { tokens: ['Zq81xK2aa', 'ghp_Zq81xK2aa', 'db-01.internal'], sentences: ['The server runs at night', 'Backups rotate weekly'], starts: ['A long first sentence that goes on and o'] };

  it('tokens found exactly (case kept), a token inside a longer one found is not repeated', () => {
    expect(fragmentsIn('token ghp_Zq81xK2aa here', f)).toEqual(['ghp_Zq81xK2aa']);
    expect(fragmentsIn('only Zq81xK2aa', f)).toEqual(['Zq81xK2aa']);
    expect(fragmentsIn('GHP_ZQ81XK2AA', f)).toEqual([]);
  });

  it('sentences found ignoring case and white space, in the purged text\'s order; the start only when no sentence is found', () => {
    expect(fragmentsIn('backups ROTATE\nweekly. the server runs  at night; db-01.internal', f)).toEqual(['db-01.internal', 'The server runs at night', 'Backups rotate weekly']);
    expect(fragmentsIn('Quoted: a long first sentence that goes on and only that', f)).toEqual(['A long first sentence that goes on and o']);
    expect(fragmentsIn('A long first sentence that goes on and on. Backups rotate weekly.', f)).toEqual(['Backups rotate weekly']);
    expect(fragmentsIn('nothing of it', f)).toEqual([]);
  });
});
