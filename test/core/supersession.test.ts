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
    // "in favor of" is a word of change as "in favour of" is
    expect([changeSignals('We use MySQL in favor of Postgres.').cue, changeSignals('We use MySQL, favoring Postgres.').cue]).toEqual([true, false]);
    // a reversal whose clause ends at once ("stopped for now": "for" is the other side) rejects nothing
    expect([...changeSignals('We stopped for now, then went on.').rejected]).toEqual([]);
    expect([...valueTerms('The staging database is db-staging-2.internal, owned by Priya.')].sort()).toEqual(['2', 'db', 'intern', 'priya', 'stage']);
  });

  it('reads each way of saying what was replaced, as typed: two spaces, a line break, a long subject, a version, no verb', () => {
    const rejected = (text: string) => [text, [...changeSignals(text).rejected]];
    for (const [text, terms] of [
      ['We replaced Jenkins with GitHub Actions.', ['jenkin']],
      ['We replace Jenkins with GitHub Actions.', ['jenkin']],
      ['We replaced  Jenkins  with GitHub Actions.', ['jenkin']],
      ['We replaced Jenkins\nwith GitHub Actions.', ['jenkin']],
      // up to four words before "was replaced by" are the replaced side
      ['Last year our old CI server Jenkins was replaced by GitHub Actions.', ['old', 'ci', 'server', 'jenkin']],
      ['Our old CI server Jenkins was  replaced by GitHub Actions.', ['old', 'ci', 'server', 'jenkin']],
      ['Node 20 was replaced by Node 22.', ['20']],
      ['CI: Jenkins replaced by GitHub Actions.', ['jenkin']],
      ['Jenkins  was replaced  by GitHub Actions.', ['jenkin']],
      ['Feature flags moved from  LaunchDarkly  to our own service.', ['launchdark']],
      ['We no longer  run the nightly export.', ['run', 'night', 'export']],
      ['We stopped  using  Yarn.', ['yarn']],
      ['We will not  use Testcontainers  anymore.', ['use', 'testcontain']],
      // "in favour of" names the chosen side: the reversed phrase ends there, either spelling
      ['We no longer squash merge pull requests in favor of rebasing.', ['squash', 'merg', 'pull', 'request']],
      ['We no longer squash merge pull requests in favour of rebasing.', ['squash', 'merg', 'pull', 'request']],
      // ... and a clause wrapped onto the next line is cut where the same clause on one line is
      ['We no longer deploy to staging every Friday for now.', ['deploy']],
      ['We no longer deploy to staging\nevery Friday for now.', ['deploy']],
      // the replaced word cut out where it stands, not where it first occurs ("jenkins" inside "Jenkinsfile": nothing was rejected)
      ['Our Jenkinsfile lint stays, but we replaced Jenkins with GitHub Actions.', ['jenkin']],
      ['3 nightly runners were replaced by one.', ['3', 'night', 'runner']],
      ['We are not anymore using Yarn.', ['use', 'yarn']],
      // a spaced hyphen ends the reversed clause as a dash does
      ['We no longer use Yarn - it was slow.', ['use', 'yarn']],
      // a reversal that is itself negated rejects nothing ("not", "never", "no", one word between at most), one that is not, does
      ['Not now, but we stopped using Yarn.', ['yarn']],
      ['We will not  stop using Jest.', []],
      ['We will not ever stop using Jest.', []],
      ['We will never ever  stop using Jest.', []],
      ["Don't stop using Jest, whatever the others say.", []],
    ] as const) {
      expect(rejected(text)).toEqual([text, terms]);
    }
  });

  it('reads the date of a dated report in each form (two dated reports are two events)', () => {
    const dates = (text: string) => [text, [...changeSignals(text).dates]];
    for (const [text, found] of [
      ['Standup 2026-03-04: Priya reviews billing.', ['2026-03-04']],
      ['Standup March 4: Priya reviews billing.', ['march 4']],
      ['Standup Mar. 14: Priya reviews billing.', ['mar. 14']],
      ['Standup 4 March: Priya reviews billing.', ['4 march']],
      ['Standup on Tuesday: Priya reviews billing.', ['tuesday']],
      ['Yesterday, today, tonight and last night the build failed.', ['yesterday', 'today', 'tonight', 'last night']],
      ['Build 2026-3-4 and release 26-03-04 and sprint 12 are no dates.', []],
    ] as const) {
      expect(dates(text)).toEqual([text, found]);
    }
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

  it('a reversal whose replaced word also stands inside a longer word supersedes (it was missed)', () => {
    const index = indexOf(['mem-aaaaaaaaaaaa', 'Decided: CI builds run on Jenkins.', 'decision']);
    expect(index.changes('Decided: the Jenkinsfile lint stays, but we replaced Jenkins with GitHub Actions for CI builds.', 'decision', 'observed', later)).toEqual([
      { id: 'mem-aaaaaaaaaaaa', outcome: 'supersede', reason: 'reversed in plain words (jenkin)', similarity: 4 / Math.sqrt(5 * 10) },
    ]);
  });

  it('two notes of one template are two events even when the newer names a move without a word of change; between facts the value changes', () => {
    const text = 'Nightly build 413 failed on the linker step after it went from Ubuntu to Debian.';
    // "went from Ubuntu to Debian" rejects ubuntu (not a word of change): the older episode is compared, and is no change
    expect(indexOf(['mem-aaaaaaaaaaaa', 'Nightly build 412 failed on the linker step.', 'episodic']).changes(text, 'episodic', 'observed', later)).toEqual([]);
    // (the value is "413" as written: the stemmer read a 3 inside a token as its mark of a consonant y and said "41i")
    expect(indexOf(['mem-bbbbbbbbbbbb', 'Nightly build 412 failed on the linker step.', 'semantic']).changes(text, 'semantic', 'observed', later)).toEqual([
      { id: 'mem-bbbbbbbbbbbb', outcome: 'supersede', reason: 'a new value (413, debian, ubuntu for 412)', similarity: 5 / Math.sqrt(6 * 9) },
    ]);
  });

  it('between two notes a value changes when the newer says so in words of change; the same value said again is no change', () => {
    const notes = indexOf(['mem-aaaaaaaaaaaa', 'The nightly build takes 12 minutes on the linker step.', 'episodic']);
    expect(notes.changes('The nightly build now takes 15 minutes on the linker step.', 'episodic', 'observed', later)).toEqual([
      { id: 'mem-aaaaaaaaaaaa', outcome: 'supersede', reason: 'a new value (15 for 12)', similarity: 6 / Math.sqrt(7 * 8) },
    ]);
    const facts = indexOf(['mem-bbbbbbbbbbbb', 'The staging database runs on db-staging-1.internal.', 'semantic']);
    expect(facts.changes('The staging database now runs on db-staging-1.internal.', 'semantic', 'observed', later)).toEqual([]);
    // the reversed terms named in the reason in order, whatever their order in the older text
    const decisions = indexOf(['mem-cccccccccccc', 'Fridays are for deploys of the billing service.', 'decision']);
    expect(decisions.changes('We no longer deploy the billing service on Fridays.', 'decision', 'observed', later)).toEqual([
      { id: 'mem-cccccccccccc', outcome: 'supersede', reason: 'reversed in plain words (bill, deploy, friday, servic)', similarity: 4 / Math.sqrt(4 * 5) },
    ]);
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

  it('another subject named with the same words is a second fact, not a changed value, unless the newer says something changed', () => {
    const index = indexOf(['mem-aaaaaaaaaaaa', 'The staging API server listens on port 8080.', 'semantic'], ['mem-bbbbbbbbbbbb', 'We use Node 18 for the billing API.', 'semantic']);
    // each holds a word the other lacks that is no value (staging / production): both stand
    expect(index.changes('The production API server listens on port 9090.', 'semantic', 'observed', later)).toEqual([]);
    // the same subject with a new value still supersedes: only values differ
    expect(index.changes('The staging API server listens on port 9090.', 'semantic', 'observed', later)).toEqual([
      { id: 'mem-aaaaaaaaaaaa', outcome: 'supersede', reason: 'a new value (9090 for 8080)', similarity: 5 / 6 },
    ]);
    // a word of change lets the words around the value differ ("moved" / "listens")
    expect(ids(index.changes('We moved the staging API server to port 9090.', 'semantic', 'observed', later))).toEqual([['mem-aaaaaaaaaaaa', 'supersede']]);
    expect(ids(index.changes('The billing API now runs on Node 20.', 'semantic', 'observed', later))).toEqual([['mem-bbbbbbbbbbbb', 'supersede']]);
    // without one, a paraphrase around the new value is two facts too: both stay, the newer ranks first by its age
    expect(index.changes('The billing API runs on Node 20.', 'semantic', 'observed', later)).toEqual([]);
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
    // 7/sqrt(20 × 20) = 0.35 exactly: enough
    expect([mayChange(7, 20, 20), mayChange(7, 20, 21)]).toEqual([true, false]);
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
