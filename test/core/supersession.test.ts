import { ResonanceIndex } from '../../src/core/resonance';
import { asciiValueTerms, asciiValueToken, changeSignals, mayChange, valueTerms, valueTermsByPattern, valueTokenByPattern } from '../../src/core/supersession';
import { DEFAULT_SETTINGS as S, type Category, type Confidence } from '../../src/core/settings';

const DAY = 86_400_000;

/** An index of older memories, each a day apart. */
function indexOf(...memories: Array<[string, string, Category, Confidence?]>): ResonanceIndex {
  const index = new ResonanceIndex(S);
  memories.forEach(([id, text, category, confidence], k) => index.add(id, text, category, { confidence: confidence ?? 'observed', createdMs: k * DAY }));
  return index;
}
const later = 100 * DAY;
const ids = (found: Array<{ id: string; outcome: string }>) => found.map((c) => [c.id, c.outcome]);

describe('supersession (ADR 0004)', () => {
  it('reads words of change, rejected sides and values from a text', () => {
    const s = changeSignals('Feature flags moved from LaunchDarkly to our own service.');
    expect([s.cue, [...s.rejected], [...s.values]]).toEqual([true, ['launchdark'], ['launchdark']]);
    expect([...changeSignals('We upgraded CI from Node 20 to Node 22.').rejected]).toEqual(['20']);
    expect([...changeSignals('Jenkins was replaced by GitHub Actions.').rejected]).toEqual(['jenkin']);
    expect(changeSignals('No errors in the nightly run.').cue).toBe(false);
    // every reversal of a text, each time it is read (a pattern read from its start again), one negated ("not stop") left out
    const twice = 'We stopped using Yarn, dropped Lerna; we will not stop running Jest.';
    expect([[...changeSignals(twice).rejected], [...changeSignals(twice).rejected]]).toEqual([['yarn', 'lerna'], ['yarn', 'lerna']]);
    // a reversal's phrase is its first six words (the rest of a long clause is kept as said)
    expect([...changeSignals('We no longer run the nightly batch export cron job on the old box.').rejected]).toEqual(['run', 'night', 'batch', 'export', 'cron']);
    // ... as written: two spaces, a tab or a line break between its words reject the same terms (the phrase is cut out of the text as it stands)
    expect([...changeSignals('We no longer run  the nightly\tbatch  export\ncron  job on the old box.').rejected]).toEqual(['run', 'night', 'batch', 'export', 'cron']);
    // a reversal whose clause ends at once ("stopped for now": "for" is the other side) rejects nothing
    expect([...changeSignals('We stopped for now, then went on.').rejected]).toEqual([]);
    expect([...valueTerms('The staging database is db-staging-2.internal, owned by Priya.')].sort()).toEqual(['2', 'db', 'intern', 'priya', 'stage']);
  });

  it('a reversal in plain words supersedes the decision it reverses', () => {
    const index = indexOf(
      ['mem-aaaaaaaaaaaa', 'We squash-merge every pull request.', 'decision'],
      ['mem-bbbbbbbbbbbb', 'End-to-end tests run on every pull request.', 'decision'],
      ['mem-cccccccccccc', 'Feature flags are managed in LaunchDarkly.', 'semantic'],
      ['mem-dddddddddddd', 'Integration tests must use Testcontainers.', 'decision'],
    );
    expect(ids(index.changes('We no longer squash-merge; use rebase merges from now on.', 'decision', 'observed', later))).toEqual([['mem-aaaaaaaaaaaa', 'supersede']]);
    expect(ids(index.changes('We no longer squash  merge; use rebase merges from now on.', 'decision', 'observed', later))).toEqual([['mem-aaaaaaaaaaaa', 'supersede']]);
    expect(ids(index.changes('End-to-end tests run nightly instead of on every pull request.', 'decision', 'observed', later))).toEqual([['mem-bbbbbbbbbbbb', 'supersede']]);
    expect(ids(index.changes('Feature flags moved from LaunchDarkly to our own service.', 'episodic', 'observed', later))).toEqual([['mem-cccccccccccc', 'supersede']]);
    expect(ids(index.changes('We will not use Testcontainers for integration tests anymore.', 'episodic', 'observed', later))).toEqual([['mem-dddddddddddd', 'supersede']]);
  });

  it('"not X any longer" is a reversal in plain words as "not X anymore" is (it opened a conflict)', () => {
    const index = indexOf(['mem-aaaaaaaaaaaa', 'Decided: use Postgres for the billing service.', 'decision'], ['mem-bbbbbbbbbbbb', 'The cache TTL is 30 seconds.', 'semantic']);
    expect(index.changes('Decided: the billing service is not on Postgres any longer.', 'decision', 'observed', later)).toEqual([
      { id: 'mem-aaaaaaaaaaaa', outcome: 'supersede', reason: 'reversed in plain words (postgr)', similarity: 4 / 5 },
    ]);
    expect(index.changes('The cache TTL is not 30 seconds any longer.', 'semantic', 'observed', later)).toEqual([
      { id: 'mem-bbbbbbbbbbbb', outcome: 'supersede', reason: 'reversed in plain words (30, second)', similarity: 4 / Math.sqrt(20) },
    ]);
    const s = changeSignals('We do not deploy on Fridays any longer.');
    expect([s.cue, [...s.rejected]]).toEqual([true, ['deploy', 'friday']]);
    // the words of change alone, without a negation before them, reject nothing
    expect([...changeSignals('Deploys on Fridays take any longer than an hour.').rejected]).toEqual([]);
  });

  it('a changed value for the same subject supersedes; a verified decision reversed by an unverified text is a conflict', () => {
    const index = indexOf(
      ['mem-aaaaaaaaaaaa', 'The staging database runs on db-staging-1.internal.', 'semantic'],
      ['mem-bbbbbbbbbbbb', 'Releases are cut by Priya every second Tuesday.', 'decision', 'verified'],
    );
    const moved = index.changes('The staging database runs on db-staging-2.internal.', 'semantic', 'observed', later);
    expect(moved).toEqual([{ id: 'mem-aaaaaaaaaaaa', outcome: 'supersede', reason: 'a new value (2 for 1)', similarity: 5 / 6 }]);
    expect(ids(index.changes('Releases are cut by Tomasz every second Tuesday.', 'decision', 'observed', later))).toEqual([['mem-bbbbbbbbbbbb', 'conflict']]);
    expect(ids(index.changes('Releases are cut by Tomasz every second Tuesday.', 'decision', 'verified', later))).toEqual([['mem-bbbbbbbbbbbb', 'supersede']]);
    // an older text never supersedes a newer one
    expect(index.changes('The staging database runs on db-staging-2.internal.', 'semantic', 'observed', -DAY)).toEqual([]);
  });

  it('routine notes are not changes: negated events, templated reports, dated reports', () => {
    const index = indexOf(
      ['mem-aaaaaaaaaaaa', 'Error rate flat after the deploy of the billing service.', 'episodic'],
      ['mem-bbbbbbbbbbbb', 'The users migration locked the table for two minutes.', 'episodic'],
      ['mem-cccccccccccc', 'Nightly build 412 failed on the linker step.', 'episodic'],
      ['mem-dddddddddddd', 'Standup 2026-03-04: Priya reviews the billing service.', 'episodic'],
    );
    expect(index.changes('No errors after the deploy of the billing service.', 'episodic', 'observed', later)).toEqual([]);
    expect(index.changes('The orders migration ran without locking the table.', 'episodic', 'observed', later)).toEqual([]);
    expect(index.changes('Nightly build 413 failed on the linker step.', 'episodic', 'observed', later)).toEqual([]);
    expect(index.changes('Standup 2026-03-05: Tomasz reviews the billing service.', 'episodic', 'observed', later)).toEqual([]);
    // and a bare negation between two notes opens no conflict either
    expect(index.resonate('No errors after the deploy of the billing service.', 'episodic')).toEqual({ kind: 'new' });
  });

  it('a memory already superseded is not superseded again: its successor is', () => {
    const index = indexOf(['mem-aaaaaaaaaaaa', 'The staging database runs on db-staging-1.internal.', 'semantic'], ['mem-bbbbbbbbbbbb', 'The staging database runs on db-staging-2.internal.', 'semantic']);
    index.markSuperseded('mem-aaaaaaaaaaaa');
    expect(ids(index.changes('The staging database now runs on db-staging-3.internal.', 'semantic', 'observed', later))).toEqual([['mem-bbbbbbbbbbbb', 'supersede']]);
  });
});

describe('mayChange: what detectChange needs before it looks at a text', () => {
  it('needs two shared terms and a cosine of 0.35', () => {
    // 2/sqrt(32) = 0.354, 2/sqrt(36) = 0.333
    expect([mayChange(1, 1, 1), mayChange(2, 4, 4), mayChange(2, 4, 8), mayChange(2, 4, 9), mayChange(2, 2, 0), mayChange(3, 8, 8)]).toEqual([false, true, true, false, false, true]);
  });
});

describe('value tokens: the ASCII cut and the regular expressions', () => {
  // asciiValueToken is valueTokenByPattern by hand for ASCII tokens (every token of most texts)
  const crafted = [
    'term2y', 'Observation', '0:', 'auth.', '(PostgreSQL)', 'iOS', 'edge-gw.harbor.internal', 'a/b', 'x:y', ':x', 'x:', '.x.', 'a..b', 'a.-b',
    '"quoted"', "it's", '--', '...', '', 'A', 'a', 'Z9', '_under_', 'snake_case', 'kebab-case', 'aB', 'a\nB', 'a\rB', 'a\tB', '(v2.0.1),', 'http://host:8080/path',
    'caf\u00e9', 'na\u00efve', 'Stra\u00dfe', '\u00c9cole', '\u0661\u0662', 'x\u00b2', '\u2014dash\u2014', 'emoji\u{1f680}',
  ];
  const alphabet = 'aZ09.:/-_"\'(),!?#@ \n\tMqx';
  let seed = 7;
  const next = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed);
  const random = Array.from({ length: 20_000 }, () => Array.from({ length: 1 + (next() % 8) }, () => alphabet[next() % alphabet.length]).join(''));

  it('gives what the regular expressions give, for crafted and 20,000 random tokens', () => {
    for (const raw of [...crafted, ...random]) {
      const fast = asciiValueToken(raw);
      expect([raw, fast === undefined ? valueTokenByPattern(raw) : fast]).toEqual([raw, valueTokenByPattern(raw)]);
    }
  });

  it('decides every ASCII token itself and leaves the others to the patterns', () => {
    expect(crafted.filter((raw) => asciiValueToken(raw) === undefined)).toEqual(crafted.filter((raw) => /[^\0-\x7f]/.test(raw)));
    expect(random.every((raw) => asciiValueToken(raw) !== undefined)).toBe(true);
    expect([asciiValueToken('(v2.0.1),'), asciiValueToken('Observation'), asciiValueToken('x:y'), asciiValueToken('-.-')]).toEqual([
      { always: true, capital: false, token: 'v2.0.1', terms: null },
      { always: false, capital: true, token: 'Observation', terms: null },
      { always: true, capital: false, token: 'x:y', terms: null },
      null,
    ]);
  });
});

describe('value terms: the ASCII cut into sentences and tokens and the regular expressions', () => {
  const inOrder = (s: Set<string> | null) => (s === null ? null : [...s]);

  it('agree, in order, on crafted texts: sentence ends before white space, line feeds, capitals first and later, hosts, versions', () => {
    const texts = [
      '', 'Observation 12: term2y auth Redis retry.', 'The staging database is db-staging-2.internal, owned by Priya.', 'Moved to Postgres. Kafka stays; Redis goes? Yes! Done: Ok',
      'a.B c', 'a. B c', 'x:\tY', 'x:Y', 'one\nTwo three\r\nFour', 'one\rTwo', 'one\u000bTwo', 'one\u000cTwo', '  Lead spaces', 'trail Caps  ', '(PostgreSQL) iOS v2.0.1,',
      'http://host:8080/path and a/b', 'e.g. Alice met Bob', 'end.', '... Capital', '.Capital', '; Semi', 'A', 'A B', '1 2 3', 'x.y', 'x/ y', '--Dash Word',
      'Then The Not NOT No Never Running (Redis), "Kafka" x2Y', `word ${'Long'.repeat(12)} ${'x'.repeat(41)}7 ${'A'.repeat(40)}`, 'a The. The', 'iOS LaunchDarkly term2y.',
    ];
    for (const text of texts) expect([text, inOrder(asciiValueTerms(text))]).toEqual([text, inOrder(valueTermsByPattern(text))]);
    expect(asciiValueTerms('Caf\u00e9 Name')).toBeNull();
    expect(inOrder(valueTerms('Caf\u00e9 Name 3'))).toEqual(inOrder(valueTermsByPattern('Caf\u00e9 Name 3')));
  });

  it('agree, in order, on 20,000 random texts', () => {
    let seed = 9;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const pieces = ['a', 'q', 'Z', 'M', '0', '7', ' ', ' ', ' ', '\t', '\n', '\r', '.', ':', ';', '!', '?', '/', '-', ',', '(', ')', "'", 'Alice ', 'term2y ', 'v1.2 ', 'db.internal ', 'The ', 'Not ', 'Running ', 'Q'.repeat(41)];
    let found = 0;
    for (let k = 0; k < 20_000; k++) {
      const text = Array.from({ length: Math.floor(rand() * 20) }, () => pieces[Math.floor(rand() * pieces.length)]).join('');
      const expected = inOrder(valueTermsByPattern(text));
      expect([text, inOrder(asciiValueTerms(text))]).toEqual([text, expected]);
      if (expected!.length > 1) found++;
    }
    expect(found).toBeGreaterThan(5000);
  });

  it('cuts an ASCII text without regular expressions (the hand cut is used)', () => {
    valueTerms('Warm: Redis 7 on db.internal, Alice said.');
    const split = jest.spyOn(String.prototype, 'split');
    const replace = jest.spyOn(String.prototype, 'replace');
    try {
      expect([...valueTerms('Warm: Redis 7 on db.internal, Alice said.')]).toEqual(['7', 'db', 'intern', 'alic']); // "Redis" opens a sentence
      expect([split.mock.calls.length, replace.mock.calls.length]).toEqual([0, 0]);
    } finally {
      split.mockRestore();
      replace.mockRestore();
    }
  });
});
