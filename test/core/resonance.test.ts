import { analyze } from '../../src/core/analyzer';
import { AnalysedText, ResonanceIndex, TermIndex, reinforcedAmplitude } from '../../src/core/resonance';
import { DEFAULT_SETTINGS as S } from '../../src/core/settings';
import { whatItAdds } from '../../src/core/polarity';

describe('analyze', () => {
  it('lowercases, drops stop words, stems, and counts negations apart', () => {
    expect(analyze("The tests don't use Testcontainers!")).toEqual({ terms: ['test', 'use', 'testcontain'], negated: true });
    expect(analyze('Never say never')).toEqual({ terms: ['say'], negated: false });
    expect(analyze('Café déjà-vu, 42 times')).toEqual({ terms: ['café', 'déjà', 'vu', '42', 'time'], negated: false });
  });
});

describe('resonance (SPEC §6)', () => {
  const index = () => {
    const i = new ResonanceIndex(S);
    i.add('mem-aaaaaaaaaaaa', 'Use pnpm, not npm, in this repository.', 'decision');
    i.add('mem-bbbbbbbbbbbb', 'Integration tests must use Testcontainers for the database.', 'decision');
    i.add('mem-cccccccccccc', 'The payments service retries three times with backoff.', 'episodic');
    return i;
  };

  it('reinforces a near-identical text of the same category with its similarity', () => {
    expect(index().resonate('use pnpm (not npm) in this repository', 'decision')).toEqual({ kind: 'reinforce', id: 'mem-aaaaaaaaaaaa', similarity: 1 });
    expect(index().resonate('use pnpm (not npm) in this repository', 'episodic')).toEqual({ kind: 'new' });
  });

  it('opens a conflict for the same subject with the opposite polarity', () => {
    const r = index().resonate('Integration tests must not use Testcontainers for the database.', 'decision');
    expect(r).toEqual({ kind: 'conflict', id: 'mem-bbbbbbbbbbbb', similarity: 1 });
  });

  it('needs three shared terms for a conflict, and the thresholds for both', () => {
    expect(index().resonate('No payments today.', 'episodic')).toEqual({ kind: 'new' });
    // 3 of 5 and 3 of 7 terms shared: cosine 0.507 < 0.6
    expect(index().resonate('The payments service never retries during the nightly batch window.', 'episodic')).toEqual({ kind: 'new' });
    // all 5 terms among the memory's 6: cosine 5/sqrt(30) = 0.913, a reinforcement
    expect(index().resonate('The payments service retries three times.', 'episodic')).toEqual({ kind: 'reinforce', id: 'mem-cccccccccccc', similarity: 5 / Math.sqrt(30) });
    // 4 shared of 5 and 6: cosine 0.730, below 0.9
    expect(index().resonate('The payments service retries twice with backoff.', 'episodic')).toEqual({ kind: 'new' });
  });

  it('finds the best of several candidates, ties to the smaller id', () => {
    const i = new ResonanceIndex(S);
    i.add('mem-bbbbbbbbbbbb', 'alpha beta gamma delta', 'episodic');
    i.add('mem-aaaaaaaaaaaa', 'alpha beta gamma delta', 'episodic');
    i.add('mem-cccccccccccc', 'alpha beta gamma delta epsilon', 'episodic');
    expect(i.resonate('alpha beta gamma delta', 'episodic')).toEqual({ kind: 'reinforce', id: 'mem-aaaaaaaaaaaa', similarity: 1 });
    expect(i.resonate('alpha beta gamma delta epsilon', 'episodic')).toEqual({ kind: 'reinforce', id: 'mem-cccccccccccc', similarity: 1 });
  });

  it('matches the exhaustive comparison on a random corpus (prefix filtering loses nothing)', () => {
    let seed = 7;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
    const texts = Array.from({ length: 300 }, () => Array.from({ length: 2 + Math.floor(rand() * 4) }, () => words[Math.floor(rand() * words.length)]).join(' '));
    const i = new ResonanceIndex(S);
    const terms: Array<Set<string>> = [];
    let agreements = 0;
    texts.forEach((text, k) => {
      const q = new Set(analyze(text).terms);
      let expected: string | null = null;
      let best = -1;
      terms.forEach((t, j) => {
        const shared = [...q].filter((w) => t.has(w)).length;
        const sim = shared / Math.sqrt(q.size * t.size);
        if (sim >= 0.9 && sim > best) [best, expected] = [sim, `mem-${String(j).padStart(12, '0')}`];
      });
      const got = i.resonate(text, 'episodic');
      expect([k, got.kind === 'reinforce' ? got.id : null]).toEqual([k, expected]);
      if (expected) agreements++;
      i.add(`mem-${String(k).padStart(12, '0')}`, text, 'episodic');
      terms.push(q);
    });
    expect(agreements).toBeGreaterThan(20);
  });

  it('matches the exhaustive comparison on long texts and their near copies (the count filter loses nothing)', () => {
    let seed = 11;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const vocabulary = Array.from({ length: 300 }, (_, n) => `w${n.toString(36)}x`);
    const texts: string[] = [];
    for (let k = 0; k < 200; k++) {
      const base = k > 0 && rand() < 0.4 ? texts[Math.floor(rand() * k)]!.split(' ') : Array.from({ length: 30 + Math.floor(rand() * 30) }, () => vocabulary[Math.floor(rand() * vocabulary.length)]!);
      // a near copy drops a few words (it adds nothing: a reinforcement when close enough)
      texts.push(base.filter(() => rand() > 0.08).join(' '));
    }
    const i = new ResonanceIndex(S);
    const terms: Array<Set<string>> = [];
    let agreements = 0;
    texts.forEach((text, k) => {
      const q = new Set(analyze(text).terms);
      let expected: string | null = null;
      let best = -1;
      terms.forEach((t, j) => {
        const shared = [...q].filter((w) => t.has(w)).length;
        const sim = shared / Math.sqrt(q.size * t.size);
        if (sim >= 0.9 && [...q].every((w) => t.has(w)) && sim > best) [best, expected] = [sim, `mem-${String(j).padStart(12, '0')}`];
      });
      const got = i.resonate(text, 'episodic');
      expect([k, got.kind === 'reinforce' ? got.id : null]).toEqual([k, expected]);
      if (expected) agreements++;
      i.add(`mem-${String(k).padStart(12, '0')}`, text, 'episodic');
      terms.push(q);
    });
    expect(agreements).toBeGreaterThan(20);
  });

  it('compares whole only the memories that can reach the threshold, not every one sharing a rare term', () => {
    // 400 memories of 200 words from 2,000: each shares about 20 words with the next text, none
    // is near it. Set lookups while resonating grew with memories x words (about 250,000 here).
    let seed = 3;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const vocabulary = Array.from({ length: 2000 }, (_, n) => `t${n.toString(36)}q`);
    const text = () => Array.from({ length: 200 }, () => vocabulary[Math.floor(rand() * vocabulary.length)]!).join(' ');
    const i = new ResonanceIndex(S);
    for (let k = 0; k < 400; k++) i.add(`mem-${String(k).padStart(12, '0')}`, text(), 'episodic');
    const next = text();
    i.resonate(next, 'episodic'); // warm the word caches
    const has = jest.spyOn(Set.prototype, 'has');
    try {
      expect(i.resonate(next, 'episodic')).toEqual({ kind: 'new' });
      expect(has.mock.calls.length).toBeLessThan(5000);
    } finally {
      has.mockRestore();
    }
  });

  it('adds event amplitude × similarity', () => {
    expect(reinforcedAmplitude(1, 0.93, S)).toBe(1.93);
    expect(reinforcedAmplitude(2.5, 1, { ...S, resonance: { ...S.resonance, eventAmplitude: 0.5 } })).toBe(3);
  });
});

describe('resonance index with a focus (one text: the postings of its own words)', () => {
  const memories: Array<[string, string, 'episodic' | 'semantic' | 'decision']> = [
    ['mem-aaaaaaaaaaaa', 'The retry budget of the webhook worker is 3 attempts.', 'semantic'],
    ['mem-bbbbbbbbbbbb', 'The webhook worker logs every retry.', 'episodic'],
    ['mem-cccccccccccc', 'Integration tests must use Testcontainers for the database.', 'decision'],
    ['mem-dddddddddddd', 'The nightly backup runs at two.', 'episodic'],
    ['mem-eeeeeeeeeeee', 'The webhook worker does not retry on a 4xx answer.', 'semantic'],
    // one word in common with the texts below: indexed under it, never decoded (too little in common to be a change)
    ['mem-ffffffffffff', 'The worker pool has 8 threads.', 'semantic'],
  ];
  const texts = [
    'The retry budget of the webhook worker changed to 5 attempts.',
    'The webhook worker retries on a 4xx answer.',
    'Integration tests must not use Testcontainers for the database.',
    'The retry budget of the webhook worker is 3 attempts.',
    'Lunch is at noon.',
  ];

  /** The index of `memories` for `text` (and the ids whose analysis it made, in order), and the full index. */
  function both(text: string) {
    const analysis = new AnalysedText(text);
    const focus = new Set([...analysis.polarity.terms, ...analysis.polarity.negated, ...analysis.signals.rejected]);
    const full = new ResonanceIndex(S);
    const focused = new ResonanceIndex(S, focus);
    const made: string[] = [];
    memories.forEach(([id, body, category], k) => {
      const options = { createdMs: k * 1000 };
      full.add(id, body, category, options);
      const { terms, negated } = new AnalysedText(body).polarity;
      const analyse = () => (made.push(id), new AnalysedText(body));
      focused.addFocused(id, analyse, terms.size, [...terms].filter((t) => focus.has(t)), [...negated].filter((t) => focus.has(t)), category, options);
    });
    return { analysis, full, focused, made };
  }

  it('resonates and finds the changes the full index finds, decoding only the memories it compares', () => {
    const seen = texts.map((text) => {
      const { analysis, full, focused, made } = both(text);
      const category = text.startsWith('Integration') ? 'decision' : 'semantic';
      const results = [focused.resonate(analysis, category), focused.changes(analysis, category, 'observed', 10_000)];
      expect(results).toEqual([full.resonate(new AnalysedText(text), category), full.changes(new AnalysedText(text), category, 'observed', 10_000)]);
      return [results[0], (results[1] as Array<{ id: string; outcome: string }>).map((c) => [c.id, c.outcome]), focused.size, made];
    });
    // text 0 changes the budget (3 to 5) and, in words of change, the memory that says the worker does not retry;
    // texts 1 and 3 speak of the worker's retries on a 4xx answer and of its retry budget: two facts
    // side by side (each holds a word the other lacks that is no value: budget, attempt / answer),
    // neither supersedes the other without a word of change
    expect(seen).toEqual([
      [{ kind: 'new' }, [['mem-aaaaaaaaaaaa', 'supersede'], ['mem-eeeeeeeeeeee', 'supersede']], 4, ['mem-aaaaaaaaaaaa', 'mem-bbbbbbbbbbbb', 'mem-eeeeeeeeeeee']],
      [{ kind: 'conflict', id: 'mem-eeeeeeeeeeee', similarity: 1 }, [], 4, ['mem-eeeeeeeeeeee', 'mem-aaaaaaaaaaaa', 'mem-bbbbbbbbbbbb']],
      [{ kind: 'conflict', id: 'mem-cccccccccccc', similarity: 1 }, [], 1, ['mem-cccccccccccc']],
      [{ kind: 'reinforce', id: 'mem-aaaaaaaaaaaa', similarity: 1 }, [], 4, ['mem-aaaaaaaaaaaa', 'mem-bbbbbbbbbbbb', 'mem-eeeeeeeeeeee']],
      // no word in common with any memory: no entry, nothing decoded
      [{ kind: 'new' }, [], 0, []],
    ]);
  });

  it('refuses a text it was not built for, and a vector match (which needs every memory)', () => {
    const { focused } = both(texts[0]!);
    expect(() => focused.resonate('The nightly backup runs at two.', 'episodic')).toThrow('resonance index built for another text (night is not in its focus)');
    expect(() => focused.resonate(texts[0]!, 'semantic', { id: 'mem-dddddddddddd', similarity: 0.97 })).toThrow('resonate: a vector match needs an index of every memory (no focus)');
  });
});

describe('TermIndex.byRarity: the order prefix filtering and the value scan read postings in', () => {
  it('puts the terms with the fewest postings first, ties by the term, terms without postings before all', () => {
    const index = new TermIndex();
    const entry = (i: number) => ({ id: `e${i}` }) as never;
    const counts: Record<string, number> = { zeta: 3, alpha: 3, mid: 2, beta: 1, gamma: 1, common: 5 };
    let i = 0;
    for (const [term, n] of Object.entries(counts)) for (let k = 0; k < n; k++) index.add(entry(i++), [term]);
    expect(index.byRarity(new Set(['common', 'zeta', 'unknown', 'alpha', 'mid', 'gamma', 'beta', 'absent']))).toEqual(['absent', 'unknown', 'beta', 'gamma', 'mid', 'alpha', 'zeta', 'common']);
    // the comparator it replaces, on 500 random sets
    let seed = 3;
    const next = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed);
    const vocabulary = Array.from({ length: 60 }, (_, k) => `t${k}`);
    for (let k = 0; k < 2000; k++) index.add(entry(i++), vocabulary.filter(() => next() % 7 === 0));
    for (let k = 0; k < 500; k++) {
      const query = new Set(vocabulary.filter(() => next() % 3 === 0));
      const expected = [...query].sort((a, b) => (index.postings.get(a)?.length ?? 0) - (index.postings.get(b)?.length ?? 0) || (a < b ? -1 : 1));
      expect(index.byRarity(query)).toEqual(expected);
    }
  });
});

describe('the reinforcement look-up: the shortest posting list of a term that is not a label word', () => {
  // the prefix scan over every memory it read before (TermIndex.best), as the reference
  const byPrefixScan = (index: ResonanceIndex, text: string, category: 'episodic' | 'semantic') => {
    const incoming = new AnalysedText(text).polarity;
    const terms = (index as unknown as { index: TermIndex }).index;
    return terms.best(incoming.terms, S.resonance.lexicalThreshold, 1, (e) => {
      if (e.category !== category) return false;
      const { added, opposed } = whatItAdds(incoming, e.polarity);
      return added.length === 0 && opposed.length === 0;
    });
  };

  it('finds what the prefix scan finds over random texts with label words, negations, copies and both categories', () => {
    let seed = 23;
    const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    const vocabulary = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];
    const extras = ['decided', 'important', 'note', 'really', 'not', 'never', 'stop', 'instead of', 'the', 'and', '42', 'v2.1'];
    const texts: string[] = [];
    for (let k = 0; k < 700; k++) {
      const copy = k > 0 && rand() < 0.5;
      const base = copy ? pick(texts).split(' ') : Array.from({ length: 1 + Math.floor(rand() * 8) }, () => pick(vocabulary));
      // a copy loses or gains a word now and then: a label word, a negation, a common word
      const words = base.filter(() => rand() > 0.1);
      if (rand() < 0.4) words.splice(Math.floor(rand() * (words.length + 1)), 0, pick(rand() < 0.7 ? extras : vocabulary));
      texts.push(words.length > 0 ? words.join(' ') : pick(extras));
    }
    const index = new ResonanceIndex(S);
    const best = jest.spyOn(TermIndex.prototype, 'best');
    const kinds = { reinforce: 0, other: 0, scanned: 0 };
    try {
      texts.forEach((text, k) => {
        const category = rand() < 0.8 ? 'episodic' : 'semantic';
        const expected = byPrefixScan(index, text, category);
        best.mockClear();
        const got = index.resonate(text, category);
        kinds.scanned += best.mock.calls.length;
        expect([k, text, got.kind === 'reinforce' ? { id: got.id, similarity: got.similarity } : null]).toEqual([k, text, expected]);
        if (expected) kinds.reinforce++;
        else kinds.other++;
        index.add(`mem-${String(k).padStart(12, '0')}`, text, category);
      });
    } finally {
      best.mockRestore();
    }
    expect(kinds.reinforce).toBeGreaterThan(150);
    expect(kinds.other).toBeGreaterThan(150);
    // only a text of label words alone (here: "decided", "important", "note", "really") scans the prefix postings
    expect(kinds.scanned).toBeLessThan(30);
  });

  it('reads only the shortest list: the prefix scan is not run for a text with a term that is not a label word', () => {
    const index = new ResonanceIndex(S);
    for (let k = 0; k < 50; k++) index.add(`mem-${String(k).padStart(12, '0')}`, `common words everywhere item${k}`, 'episodic');
    index.add('mem-zzzzzzzzzzzz', 'common words everywhere rare alpha bravo charlie delta echo foxtrot', 'episodic');
    const text = new AnalysedText('Decided: common words everywhere rare alpha bravo charlie delta echo foxtrot');
    void text.polarity; // analysed (and the label words stemmed) before counting
    expect(index.resonate('Decided: note', 'episodic')).toEqual({ kind: 'new' });
    const best = jest.spyOn(TermIndex.prototype, 'best');
    const shared = jest.spyOn(Set.prototype, 'has');
    try {
      expect(index.resonate(text, 'episodic')).toEqual({ kind: 'reinforce', id: 'mem-zzzzzzzzzzzz', similarity: 10 / Math.sqrt(110) });
      // 11 label-word checks, then one candidate (the memory holding "rare") compared: its 10 required terms, its cosine (11),
      // what it adds and opposes (12 + 11); not the 51 memories holding "common", "word" or "everywher"
      expect(shared.mock.calls.length).toBe(55);
      expect(index.resonate('common words everywhere unknown', 'episodic')).toEqual({ kind: 'new' });
      expect(best).not.toHaveBeenCalled();
      expect(index.resonate('Decided: important note', 'episodic')).toEqual({ kind: 'new' });
      expect(best).toHaveBeenCalledTimes(1);
    } finally {
      best.mockRestore();
      shared.mockRestore();
    }
  });
});

describe('changes: the count filter over the value terms\' postings', () => {
  // facts and decisions on a few common subjects, each with values (numbers, versions), some in words of change
  const words = ['retry', 'worker', 'budget', 'queue', 'deploy', 'cache', 'ttl', 'service', 'limit', 'timeout', 'redis', 'postgres', 'node', 'api', 'rate', 'batch'];
  const values = ['3', '5', '20', '1.9', '2.0', 'v12', '500ms', '2s', '42'];
  const cues = ['', '', '', 'now ', 'moved from 3 to ', 'no longer ', 'switched to ', 'instead of 5 '];
  let seed = 29;
  const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const sentence = () => `${pick(cues)}${Array.from({ length: 3 + Math.floor(random() * 9) }, () => (random() < 0.25 ? pick(values) : pick(words))).join(' ')}.`;

  it('finds the changes every candidate compared whole finds, on 600 random texts against 400 memories', () => {
    const index = new ResonanceIndex(S);
    for (let k = 0; k < 400; k++) index.add(`mem-${String(k).padStart(12, '0')}`, sentence(), pick(['semantic', 'decision', 'episodic'] as const), { createdMs: k * 1000, confidence: pick(['verified', 'observed'] as const) });
    let found = 0;
    for (let k = 0; k < 600; k++) {
      const text = sentence();
      const category = pick(['semantic', 'decision', 'episodic'] as const);
      const filtered = index.changes(new AnalysedText(text), category, 'observed', 500_000);
      expect([text, filtered]).toEqual([text, index.changes(new AnalysedText(text), category, 'observed', 500_000, false)]);
      if (filtered.length > 0) found++;
    }
    expect(found).toBeGreaterThan(100);
  });
});

describe('resonate: conflict candidates bounded by the postings of the rarest terms', () => {
  const words = ['use', 'retry', 'worker', 'queue', 'deploy', 'cache', 'redis', 'postgres', 'node', 'api', 'batch', 'lint', 'flag', 'ledger'];
  let seed = 31;
  const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const rare = () => `term${Math.floor(random() * 60)}`;
  const body = () => Array.from({ length: 3 + Math.floor(random() * 7) }, () => (random() < 0.4 ? rare() : pick(words))).join(' ');
  // affirmed, negated in part ("no longer use X: ..."), negated whole
  const sentence = () => pick([() => `${body()}.`, () => `We no longer use ${body()}: ${body()}.`, () => `Not ${body()}.`, () => `${body()}, never ${body()}.`])();

  it('finds the conflicts every candidate compared whole finds, on 800 random texts against 500 memories', () => {
    const index = new ResonanceIndex(S);
    const categories = ['semantic', 'decision', 'episodic'] as const;
    for (let k = 0; k < 500; k++) index.add(`mem-${String(k).padStart(12, '0')}`, sentence(), pick(categories), { createdMs: k * 1000 });
    const kinds = new Map<string, number>();
    for (let k = 0; k < 800; k++) {
      const text = sentence();
      const category = pick(categories);
      const bounded = index.resonate(new AnalysedText(text), category);
      expect([text, bounded]).toEqual([text, index.resonate(new AnalysedText(text), category, null, false)]);
      kinds.set(bounded.kind, (kinds.get(bounded.kind) ?? 0) + 1);
    }
    expect(kinds.get('conflict')).toBeGreaterThan(40);
  });
});
