import { resetWordTable } from '../../src/core/analyzer';
import { asciiClauseWords, asciiPolarity, clauseWordsByPattern, NO_TERMS, opposedTerms, polarity, polarityOfWords, whatItAdds, type Polarity } from '../../src/core/polarity';
import { ResonanceIndex } from '../../src/core/resonance';
import { DEFAULT_SETTINGS as S } from '../../src/core/settings';

const sorted = (s: Set<string>) => [...s].sort();

describe('polarity by term (SPEC §6)', () => {
  it('negates only the terms in the negation scope: to the end of the clause', () => {
    const p = polarity('Decided: use pnpm workspaces for the monorepo, not yarn.');
    expect([sorted(p.affirmed), sorted(p.negated)]).toEqual([['decid', 'monorepo', 'pnpm', 'use', 'workspac'], ['yarn']]);
    const q = polarity('Decided: we will not use pnpm workspaces for the monorepo.');
    expect([sorted(q.affirmed), sorted(q.negated)]).toEqual([['decid'], ['monorepo', 'pnpm', 'use', 'workspac']]);
  });

  it('reads reversal words as negations: stop, no longer, instead of, rather than, drop ... in favour of', () => {
    expect(sorted(polarity('Decided: stop using pnpm workspaces for the monorepo, not yarn.').negated)).toEqual(['monorepo', 'pnpm', 'use', 'workspac', 'yarn']);
    expect(sorted(polarity('We no longer use pnpm workspaces').negated)).toEqual(['pnpm', 'use', 'workspac']);
    expect(sorted(polarity("We don't use pnpm workspaces anymore").negated)).toEqual(['pnpm', 'use', 'workspac']);
    expect(sorted(polarity('Use yarn instead of pnpm workspaces').negated)).toEqual(['pnpm', 'workspac']);
    expect(sorted(polarity('Use yarn rather than pnpm').negated)).toEqual(['pnpm']);
    // "not any longer" is one negation ("longer" neither side); "instead" without "of", or "of" without "instead", flips nothing
    for (const [text, affirmed, negated] of [
      ['We do not any longer use Yarn.', [], ['use', 'yarn']],
      ['We use Yarn instead.', ['use', 'yarn', 'instead'], []],
      ['We do not use Yarn but a fork of npm.', ['fork', 'npm'], ['use', 'yarn']],
    ] as const) {
      const p = polarity(text);
      expect([text, [...p.affirmed], [...p.negated]]).toEqual([text, affirmed, negated]);
    }
    const favour = polarity('Dropped yarn in favour of pnpm');
    expect([sorted(favour.affirmed), sorted(favour.negated)]).toEqual([['drop', 'pnpm'], ['yarn']]);
  });

  it('reads "in favour of" as the chosen side: affirmed with or without a reversal before it, negated only right after a negation', () => {
    const plain = (text: string) => { const p = polarity(text); return [sorted(p.affirmed), sorted(p.negated)]; };
    // no reversal before it: nothing to cancel, nothing negated (it negated pnpm and workspac)
    expect(plain('We are in favour of pnpm workspaces')).toEqual([['pnpm', 'workspac'], []]);
    expect(plain('in favor of Postgres')).toEqual([['postgr'], []]);
    // a negation right before it rejects the chosen side
    expect(plain('We are not in favour of pnpm workspaces')).toEqual([[], ['pnpm', 'workspac']]);
    expect(plain('We are no longer in favour of pnpm')).toEqual([[], ['pnpm']]);
    expect(plain('We are not any longer in favor of yarn')).toEqual([[], ['yarn']]);
    // a negation further back: the reversal's flip ends at "in favour of"
    expect(plain('Never keep yarn or npm in favour of pnpm')).toEqual([['pnpm'], ['keep', 'npm', 'yarn']]);
    expect(plain('not yarn in favour of pnpm')).toEqual([['pnpm'], ['yarn']]);
    // a reversal as the first word, "in favour of" right after it: the flip ends (the index of the
    // word after the last negation starts at none, not at word 1)
    expect(plain('Dropped in favour of pnpm')).toEqual([['drop', 'pnpm'], []]);
    // only "in favour of" / "in favor of" is the phrase: "in place of" and a "favour" without "of" end no flip
    expect(plain('dropped yarn in place of npm')).toEqual([['drop'], ['npm', 'place', 'yarn']]);
    expect(plain('dropped yarn in favour npm')).toEqual([['drop'], ['favour', 'npm', 'yarn']]);
    // "longer" two words after a negation is a term unless "any" stands between them
    expect(plain('not use longer timeouts')).toEqual([[], ['longer', 'timeout', 'use']]);
    // two in a row: the second after no negation affirms too
    expect(plain('dropped redis in favour of valkey in favour of postgres')).toEqual([['drop', 'postgr', 'valkey'], ['redi']]);
  });

  it('ends a scope at a contrasting conjunction, and two negations in one scope cancel', () => {
    const p = polarity("Don't use yarn but use pnpm");
    expect([sorted(p.affirmed), sorted(p.negated)]).toEqual([['pnpm'], ['yarn']]); // "use" is both: neither side
    const twice = polarity("Don't stop using pnpm");
    expect([sorted(twice.affirmed), sorted(twice.negated)]).toEqual([['pnpm', 'use'], ['stop']]);
    // each contrasting word ends the scope: what follows it is affirmed, and the word itself is neither side
    for (const word of ['but', 'and', 'however', 'although', 'though', 'whereas', 'yet', 'except', 'while']) {
      const q = polarity(`We do not deploy on Fridays ${word} release on Mondays`);
      expect([word, [...q.negated], [...q.affirmed]]).toEqual([word, ['deploy', 'friday'], ['releas', 'monday']]);
    }
    // a dot inside a host name or a comma inside a number ends nothing
    expect(sorted(polarity('Do not connect to db.internal on port 1,000').negated)).toEqual(['000', '1', 'connect', 'db', 'intern', 'port']);
  });

  it('says what a new text adds to a memory: new terms (label words aside) and opposed terms', () => {
    const memory = polarity('Use pnpm workspaces for the monorepo, not yarn.');
    expect(whatItAdds(polarity('Decided: use pnpm workspaces in the monorepo, not yarn'), memory)).toEqual({ added: [], opposed: [] });
    expect(whatItAdds(polarity('We will not use pnpm workspaces for the monorepo.'), memory)).toEqual({ added: [], opposed: ['monorepo', 'pnpm', 'use', 'workspac'] });
    expect(whatItAdds(polarity('Use pnpm workspaces for the monorepo on Linux, not yarn.'), memory)).toEqual({ added: ['linux'], opposed: [] });
    expect(opposedTerms(polarity('Use yarn, not pnpm workspaces, for the monorepo'), memory)).toEqual(['pnpm', 'workspac', 'yarn']);
  });
});

describe('resonance never folds a reversal or an addition into a memory', () => {
  const ORIGINAL = 'Decided: use pnpm workspaces for the monorepo, not yarn.';
  const index = () => {
    const i = new ResonanceIndex(S);
    i.add('mem-aaaaaaaaaaaa', ORIGINAL, 'decision');
    i.add('mem-bbbbbbbbbbbb', 'The payments service retries three times with exponential backoff and jitter on every timeout.', 'semantic');
    return i;
  };

  it("the tester's reversals open a conflict with the decision (cosine 0.913 and 0.926: near-identical, opposite polarity)", () => {
    expect(index().resonate('Decided: we will not use pnpm workspaces for the monorepo.', 'decision')).toEqual({ kind: 'conflict', id: 'mem-aaaaaaaaaaaa', similarity: 5 / Math.sqrt(30) });
    expect(index().resonate('Decided: stop using pnpm workspaces for the monorepo, not yarn.', 'decision')).toEqual({ kind: 'conflict', id: 'mem-aaaaaaaaaaaa', similarity: 6 / Math.sqrt(42) });
    expect(index().resonate('Decided: we no longer use pnpm workspaces for the monorepo.', 'decision')).toEqual({ kind: 'conflict', id: 'mem-aaaaaaaaaaaa', similarity: 5 / Math.sqrt(36) });
    expect(index().resonate('Decided: use yarn instead of pnpm workspaces for the monorepo.', 'decision')).toEqual({ kind: 'conflict', id: 'mem-aaaaaaaaaaaa', similarity: 6 / Math.sqrt(42) });
    expect(index().resonate('Decided: use yarn, not pnpm workspaces, for the monorepo.', 'decision')).toEqual({ kind: 'conflict', id: 'mem-aaaaaaaaaaaa', similarity: 1 });
  });

  it('still reinforces the same decision reworded: word order, inflection, stop words, label words, case, another negation word', () => {
    for (const text of [
      'Decided: use pnpm workspaces for the monorepo, not yarn',
      'We decided to use pnpm workspaces in the monorepo and not yarn.',
      'Decided: the monorepo uses pnpm workspaces, not yarn.',
      "Use pnpm workspaces for the monorepo (don't use yarn).",
      'decided: USE PNPM WORKSPACES FOR THE MONOREPO, NEVER YARN',
    ]) {
      expect([text, index().resonate(text, 'decision').kind]).toEqual([text, 'reinforce']);
    }
    expect(index().resonate('The payments service retries three times with exponential backoff and jitter on each timeout!', 'semantic')).toEqual({ kind: 'reinforce', id: 'mem-bbbbbbbbbbbb', similarity: 9 / Math.sqrt(90) }); // one word fewer ("every")
  });

  it('writes a near-identical text that adds a word: a changed number, a qualifier, a rejected alternative', () => {
    // 10 of 11 terms shared: cosine 0.909 would have reinforced and dropped "five"
    expect(index().resonate('The payments service retries five times with exponential backoff and jitter on every timeout.', 'semantic')).toEqual({ kind: 'new' });
    expect(index().resonate('The payments service retries 3 times with exponential backoff and jitter on every timeout.', 'semantic')).toEqual({ kind: 'new' });
    expect(index().resonate('Decided: use pnpm workspaces for the monorepo on CI, not yarn.', 'decision')).toEqual({ kind: 'new' });
  });

  it('a vault holding both sides: the side that agrees is reinforced, not the one with the same words', () => {
    const i = index();
    i.add('mem-cccccccccccc', 'Decided: we will not use pnpm workspaces for the monorepo.', 'decision');
    expect(i.resonate('Decided: we won\u2019t use pnpm workspaces for the monorepo', 'decision')).toEqual({ kind: 'reinforce', id: 'mem-cccccccccccc', similarity: 1 });
    expect(i.resonate(ORIGINAL, 'decision')).toEqual({ kind: 'reinforce', id: 'mem-aaaaaaaaaaaa', similarity: 1 });
  });

  it('a match by meaning (vectors) is reinforced unless it is reversed or adds a negation or a number', () => {
    const i = index();
    const vector = { id: 'mem-aaaaaaaaaaaa', similarity: 0.97 };
    expect(i.resonate('The monorepo is built on pnpm workspaces', 'decision', vector)).toEqual({ kind: 'reinforce', id: 'mem-aaaaaaaaaaaa', similarity: 0.97 });
    expect(i.resonate('The monorepo is not built on pnpm workspaces', 'decision', vector)).toEqual({ kind: 'conflict', id: 'mem-aaaaaaaaaaaa', similarity: 0.97 });
    expect(i.resonate('The monorepo is built on pnpm 9 workspaces', 'decision', vector)).toEqual({ kind: 'new' });
  });
});

describe('the clauses of an ASCII text cut by hand (asciiClauseWords) and by the patterns', () => {
  const byPattern = (lower: string) => clauseWordsByPattern(lower).filter((clause) => clause.length > 0);

  it('agree on crafted texts: clause punctuation before a space or the end, inside words and numbers, brackets, line breaks, hyphens', () => {
    const texts = [
      '', ' ', 'one', 'a.b c', 'a. b', 'a.', 'a .b', 'a..b', 'a.. b', 'x,y, z', '1,000 and 2', 'end!', 'what? now', 'k: v', 'k:v',
      'a - b', 'a-b', 'a -b', 'a- b', 'a -- b', 'a - - b', 'a\t-\tb', 'a\n-\nb', 'a \u000b- b', '- a -', ' - ', 'a(b)c', '[x]{y}', 'a\r\nb', 'a\rb',
      'no longer use yarn; use pnpm', "don't stop using pnpm", 'use yarn instead of pnpm, not npm.', 'db.internal:5432/x y', '...', 'a;;;b', '; ; ;',
      'a.\u000cb', 'a.\tb', 'e.g. this', 'v1.2.3 - v2', 'x--y', 'a,', ',a', 'A.B C', 'MiXeD. Case',
    ];
    for (const text of texts) expect([text, asciiClauseWords(text)]).toEqual([text, byPattern(text)]);
    expect(asciiClauseWords('café. ok')).toBeNull();
    expect(asciiClauseWords('a \u2014 b')).toBeNull();
  });

  it('agree on 20,000 random texts of letters, digits, spaces, punctuation, brackets and line breaks', () => {
    let seed = 5;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const alphabet = ['a', 'b', 'z', 'q', '0', '7', 'A', ' ', ' ', ' ', '\t', '\n', '\r', '\u000b', '\u000c', '.', ',', ';', ':', '!', '?', '-', '-', '(', ')', '[', ']', '{', '}', "'", '/', '_', '#', 'not ', 'no longer ', ' - '];
    let cut = 0;
    for (let k = 0; k < 20_000; k++) {
      const text = Array.from({ length: Math.floor(rand() * 24) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
      const expected = byPattern(text);
      expect([text, asciiClauseWords(text)]).toEqual([text, expected]);
      if (expected.length > 1) cut++;
    }
    expect(cut).toBeGreaterThan(5000);
  });

  it('polarity of an ASCII text splits nothing with a regular expression (the hand cut is used)', () => {
    polarity('Warm the word cache: use pnpm, not yarn (for now) - really.');
    const split = jest.spyOn(String.prototype, 'split');
    try {
      const p = polarity('Warm the word cache: use pnpm, not yarn (for now) - really.');
      expect([sorted(p.affirmed), sorted(p.negated)]).toEqual([['cach', 'now', 'pnpm', 'realli', 'use', 'warm', 'word'], ['yarn']]);
      expect(split).not.toHaveBeenCalled();
    } finally {
      split.mockRestore();
    }
  });
});

describe('polarity of an ASCII text scanned once through the word table (asciiPolarity) and by its clauses\' words (polarityOfWords)', () => {
  // the sets in their order: terms, negated, affirmed (an order change is a change too)
  const inOrder = (p: { terms: Set<string>; negated: Set<string>; affirmed: Set<string> } | null) => (p === null ? null : [[...p.terms], [...p.negated], [...p.affirmed]]);
  // the sets in their order, and which of them are the terms set itself or the shared empty one
  const shape = (p: Polarity) => [...inOrder(p)!, p.affirmed === p.terms, p.negated === p.terms, p.affirmed === NO_TERMS, p.negated === NO_TERMS];

  it('agree on crafted texts: negations, reversal verbs, scope ends, no longer, instead of, in favour of, long words, clause breaks', () => {
    const texts = [
      '', ' ', '.', 'one', 'Use pnpm, not yarn.', 'We will NOT use pnpm workspaces for the monorepo.', 'We no longer use X', 'not any longer Y z', 'not any more Y',
      'Stop using pnpm; use yarn', 'Stopped running the cron but kept the queue', 'use yarn instead of pnpm, rather than npm', 'Dropped Redis in favour of Postgres',
      'dropped redis in favor of postgres and kafka', 'in favour', 'not in favour of it', 'However never X, though Y', 'never never Z', 'no\nlonger x', 'no - longer x',
      'Not (longer) x', 'nothing anymore Q', 'anymore', 'A rather', 'instead', 'x not', `use ${'Supercalifragilistic'.repeat(3)} not ${'b'.repeat(41)} ${'c'.repeat(40)}`,
      'Without the LB, neither A nor B: cannot deploy.', 'e.g. not this - that', 'v1.2.3 not v2 (not 3) [no 4] {never 5}', 'Observation 12: term2y auth Redis retry.',
      'Decided: stop using pnpm workspaces for the monorepo, not yarn.', 'a\r\nnot b', 'a\tnot\u000bb', 'abandon avoid ban forbid forbade forbidden reject ditch x',
    ];
    for (const text of texts) {
      expect(asciiPolarity(text)).not.toBeNull();
      expect([text, inOrder(asciiPolarity(text))]).toEqual([text, inOrder(polarityOfWords(text))]);
      expect([text, shape(asciiPolarity(text)!)]).toEqual([text, shape(polarityOfWords(text, true))]);
    }
    // an apostrophe or a backquote (expandNegations' work) or any character above 0x7f: the words decide
    for (const text of ["don't stop", 'use `x`', 'caf\u00e9 not', 'a \u2014 not b', 'won\u2019t']) {
      expect(asciiPolarity(text)).toBeNull();
      expect(inOrder(polarity(text))).toEqual(inOrder(polarityOfWords(text)));
    }
  });

  it('shares the terms as the affirmed (or negated) side only when they are the same in the same order, and one empty set', () => {
    const plain = polarity('Redis caches sessions');
    expect([plain.affirmed === plain.terms, plain.negated.size, [...plain.affirmed]]).toEqual([true, 0, ['redi', 'cach', 'session']]);
    // the same terms in another order: "rather than rather than" flips twice, z is affirmed before the last "rather"
    const reordered = polarity('rather than rather than z rather');
    expect([[...reordered.terms], [...reordered.affirmed], reordered.affirmed === reordered.terms]).toEqual([['rather', 'z'], ['z', 'rather'], false]);
    const negatedOnly = polarity('not x y');
    expect([[...negatedOnly.negated], negatedOnly.negated === negatedOnly.terms, negatedOnly.affirmed.size]).toEqual([['x', 'y'], true, 0]);
    // "however" is a term but ends a scope: never affirmed
    const scopeEnd = polarity('however x y');
    expect([[...scopeEnd.terms], [...scopeEnd.affirmed]]).toEqual([['howev', 'x', 'y'], ['x', 'y']]);
    expect(polarity('the').negated).toBe(polarity('and').affirmed);
  });

  it('agree on 20,000 random texts, with a word table emptied as it fills', () => {
    let seed = 11;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const pieces = [
      'a', 'Q', '7', ' ', ' ', ' ', '\t', '\n', '\r', '.', ',', ';', ':', '!', '?', '-', ' - ', '(', ')', '[', '}', '/', 'not ', 'No ', 'never ', 'longer ', 'any ',
      'instead ', 'of ', 'rather ', 'than ', 'in ', 'favour ', 'favor ', 'anymore ', 'but ', 'However ', 'stop ', 'Stopped ', 'dropping ', 'pnpm ', 'Yarn ', 'use ', 'the ',
      'Redis ', 'term2y ', 'x'.repeat(45), 'Running ',
    ];
    let negated = 0;
    let plain = 0;
    resetWordTable(6);
    try {
      for (let k = 0; k < 20_000; k++) {
        const text = Array.from({ length: Math.floor(rand() * 24) }, () => pieces[Math.floor(rand() * pieces.length)]).join('');
        const expected = inOrder(polarityOfWords(text));
        expect([text, inOrder(asciiPolarity(text))]).toEqual([text, expected]);
        // the rules run over every clause: the same sets, shared the same way
        expect([text, shape(asciiPolarity(text)!)]).toEqual([text, shape(polarityOfWords(text, true))]);
        if (expected![1]!.length === 0) plain++;
        if (expected![1]!.length > 0 && expected![2]!.length > 0) negated++;
      }
    } finally {
      resetWordTable();
    }
    expect(negated).toBeGreaterThan(3000);
    expect(plain).toBeGreaterThan(3000);
  });

  it('affirms the terms of plain clauses before the first clause the rules change, in their order', () => {
    // plain clauses, then one with a negation, a reversal verb, a scope end that is a term, "instead of", "anymore"
    for (const [text, affirmed, negated] of [
      ['Redis caches, queues sessions; not Yarn', ['redi', 'cach', 'queue', 'session'], ['yarn']],
      ['pnpm builds. Stopped cron jobs', ['pnpm', 'build', 'stop'], ['cron', 'job']],
      ['a x. however y z', ['x', 'y', 'z'], []],
      ['b y; use x instead of z', ['b', 'y', 'use', 'x'], ['z']],
      ['c y: w anymore', ['c', 'y', 'w'], []],
      // x affirmed in a plain clause, negated in a later one: neither
      ['q y, y x. r y not x', ['q', 'y', 'r'], []],
    ] as const) {
      const p = polarity(text);
      expect([text, [...p.affirmed], [...p.negated]]).toEqual([text, affirmed, negated]);
      expect([text, shape(p)]).toEqual([text, shape(polarityOfWords(text, true))]);
    }
  });
});
