import { parseMemory } from '../../../src/core/memory';
import { toRecallDoc } from '../../../src/core/recall/catalog';
import { RecallEngine } from '../../../src/core/recall/recall';
import { memoryTimeTerms, queryTime, sharedTimeTerms, spanTerms, TIME_SAID } from '../../../src/core/recall/time-terms';
import { DEFAULT_SETTINGS as S, resolveSettings } from '../../../src/core/settings';
import { MS_PER_DAY } from '../../../src/core/time';
import { at } from '../../helpers/memory-ports';

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

describe('time terms', () => {
  it('indexes a span at the finest unit of at most a week of terms, and at every coarser one', () => {
    expect(spanTerms(day('2022-05-01'), day('2022-05-02'))).toEqual(['day:2022-05-01', 'month:2022-05', 'year:2022']);
    expect(spanTerms(day('2022-04-29'), day('2022-05-02'))).toEqual(['day:2022-04-29', 'month:2022-04', 'year:2022', 'day:2022-04-30', 'day:2022-05-01', 'month:2022-05']);
    expect(spanTerms(day('2021-06-01'), day('2021-09-01'))).toEqual(['month:2021-06', 'year:2021', 'month:2021-07', 'month:2021-08']);
    expect(spanTerms(day('2021-01-01'), day('2023-01-01'))).toEqual(['year:2021', 'year:2022']);
    expect(spanTerms(day('2018-01-01'), day('2023-01-01'))).toEqual([]);
  });

  it("indexes a memory under the day it was written and the dates it names, resolved against that day", () => {
    expect(memoryTimeTerms('I watched it last night, loved it', Date.parse('2022-05-02T18:00:00Z'))).toEqual([
      'day:2022-05-02', 'month:2022-05', 'year:2022', 'day:2022-05-01', TIME_SAID,
    ]);
    expect(memoryTimeTerms("I've known them for 4 years", Date.parse('2022-05-02T18:00:00Z'))).toEqual(['day:2022-05-02', 'month:2022-05', 'year:2022', TIME_SAID]);
    expect(memoryTimeTerms('Backoff starts at 200 ms', Date.parse('2022-05-02T18:00:00Z'))).toEqual(['day:2022-05-02', 'month:2022-05', 'year:2022']);
  });

  it('shares the terms of a day among the memories of that day that name no date (sharedTimeTerms); memoryTimeTerms gives a copy each', () => {
    const morning = Date.parse('2022-05-02T08:00:00Z');
    const evening = Date.parse('2022-05-02T20:00:00Z');
    const day = ['day:2022-05-02', 'month:2022-05', 'year:2022'];
    const a = sharedTimeTerms('Backoff starts at 200 ms', morning);
    const b = sharedTimeTerms('Nothing dated here', evening);
    expect([a, b]).toEqual([day, day]);
    expect(a).toBe(b);
    expect(sharedTimeTerms('Nothing dated here', evening + MS_PER_DAY)).toEqual(['day:2022-05-03', 'month:2022-05', 'year:2022']);
    // a memory that names a date or a duration has terms of its own, as memoryTimeTerms gives them
    const dated = sharedTimeTerms('I watched it last night', evening);
    expect(dated).toEqual([...day, 'day:2022-05-01', TIME_SAID]);
    expect(dated).not.toBe(sharedTimeTerms('I watched it last night', evening));
    expect(sharedTimeTerms('for 4 years', evening)).toEqual([...day, TIME_SAID]);
    // memoryTimeTerms' arrays are the caller's: changing one changes no other
    const own = memoryTimeTerms('Nothing dated here', morning);
    expect(own).toEqual(day);
    expect(own).not.toBe(a);
    expect(own).not.toBe(memoryTimeTerms('Nothing dated here', morning));
    own.push('changed');
    expect([sharedTimeTerms('Nothing dated here', morning), memoryTimeTerms('Nothing dated here', morning)]).toEqual([day, day]);
  });

  it('gives each memory its own written day, twice over 5,000 days (the day terms are kept by day, up to 4,096 days)', () => {
    const first = Date.parse('2015-01-01T10:00:00Z');
    // one expect for the 10,000 (each expect costs more than the code it checks): the days that differ
    const differ: string[] = [];
    for (let round = 0; round < 2; round++) {
      for (let k = 0; k < 5000; k++) {
        const created = first + k * MS_PER_DAY;
        const start = Math.floor(created / MS_PER_DAY) * MS_PER_DAY;
        const got = memoryTimeTerms('Nothing dated here', created).join(' ');
        if (got !== spanTerms(start, start + MS_PER_DAY).join(' ')) differ.push(`${round}/${k}: ${got}`);
      }
    }
    expect(differ).toEqual([]);
    expect(memoryTimeTerms('Nothing dated here', first)).toEqual(['day:2015-01-01', 'month:2015-01', 'year:2015']);
    expect(memoryTimeTerms('Nothing dated here', first + 4999 * MS_PER_DAY)).toEqual(['day:2028-09-08', 'month:2028-09', 'year:2028']);
  });

  it('steps over the days of a month or year span that add no term: the same terms as formatting every day, over 20,000 seeded spans', () => {
    // the code spanTerms replaced: every day of the span formatted (each UTC day formatted once,
    // remembered by its number: 3 million Date formats were most of this test's 15 s)
    const isoDays = new Map<number, string>();
    const isoDay = (ms: number): string => {
      const n = Math.floor(ms / MS_PER_DAY);
      let iso = isoDays.get(n);
      if (iso === undefined) isoDays.set(n, (iso = new Date(ms).toISOString().slice(0, 10)));
      return iso;
    };
    const everyDay = (start: number, end: number): string[] => {
      const days = Math.round((end - start) / MS_PER_DAY);
      if (days <= 0 || days > 3 * 366) return [];
      const terms = new Set<string>();
      for (let d = start; d < end; d += MS_PER_DAY) {
        const iso = isoDay(d);
        if (days <= 7) terms.add(`day:${iso}`);
        if (days <= 92) terms.add(`month:${iso.slice(0, 7)}`);
        terms.add(`year:${iso.slice(0, 4)}`);
      }
      return [...terms];
    };
    let seed = 23;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const anchors = [Date.parse('2022-01-01T00:00:00Z'), Date.parse('1999-12-31T00:00:00Z'), Date.parse('0050-02-27T00:00:00Z'), Date.parse('2024-02-28T00:00:00Z')];
    let terms = 0;
    const differ: string[] = [];
    for (let k = 0; k < 20_000; k++) {
      const start = anchors[k % 4]! + next(4000) * MS_PER_DAY + (k % 3 === 0 ? 0 : next(MS_PER_DAY));
      const end = start + [1 + next(8), 8 + next(90), 90 + next(1020), next(3) * MS_PER_DAY / 2][k % 4]! * (k % 4 === 3 ? 1 : MS_PER_DAY) + (k % 5 === 0 ? next(MS_PER_DAY) : 0);
      const want = everyDay(start, end);
      const got = spanTerms(start, end);
      if (got.join(' ') !== want.join(' ')) differ.push(`${start}-${end}: ${got.join(' ')} for ${want.join(' ')}`);
      terms += want.length;
    }
    expect(differ).toEqual([]);
    expect(terms).toBe(75_137);
    expect(spanTerms(day('2019-01-01'), day('2020-01-01'))).toEqual(['year:2019']);
    expect(spanTerms(Date.parse('2019-03-30T15:00:00Z'), Date.parse('2019-06-02T15:00:00Z'))).toEqual(['month:2019-03', 'year:2019', 'month:2019-04', 'month:2019-05', 'month:2019-06']);
  });

  it("looks a question's dates up at their finest unit, and knows a question about when", () => {
    const now = Date.parse('2022-11-12T12:00:00Z');
    expect(queryTime('What movie did Joanna watch on 1 May, 2022?', now)).toEqual({ terms: ['day:2022-05-01'], asksWhen: false });
    expect(queryTime('What did Nate do in April 2022?', now)).toEqual({ terms: ['month:2022-04'], asksWhen: false });
    expect(queryTime('When did Melanie go camping in June?', now)).toEqual({ terms: ['month:2022-06'], asksWhen: true });
    expect(queryTime('How long has Caroline had her friends?', now)).toEqual({ terms: [], asksWhen: true });
    expect(queryTime('What did she do when it rained?', now)).toEqual({ terms: [], asksWhen: false });
  });

  it('resolves the relative dates of a question that names a date of its own against that date', () => {
    const now = Date.parse('2023-08-14T12:00:00Z');
    // the weekend before Monday 10 April 2023, not the one before the question is asked
    expect(queryTime('What did Maria do last weekend before April 10, 2023?', now).terms).toEqual(['day:2023-04-08', 'day:2023-04-09', 'day:2023-04-10']);
    expect(queryTime('What did Maria do last weekend?', now).terms).toEqual(['day:2023-08-12', 'day:2023-08-13']);
  });
});

describe('recall with time terms', () => {
  const id = (n: number) => `mem-${String(n).padStart(12, '0')}`;
  const memory = (n: number, created: string, body: string) =>
    toRecallDoc(parseMemory(`episodic/${id(n)}.md`, `---\nid: ${id(n)}\ncategory: episodic\ncreated_at: "${created}"\n---\n${body}\n`, S), false);
  const docs = [
    memory(0, '2022-05-02T09:00:00Z', 'Joanna: I watched The Lord of the Rings last night, what a film.'),
    memory(1, '2022-05-20T09:00:00Z', 'Joanna: I watched a film about turtles.'),
    memory(2, '2022-06-01T09:00:00Z', 'Joanna: I watched another film with friends.'),
    memory(3, '2022-06-03T09:00:00Z', 'Joanna: The support group yesterday was so powerful.'),
    memory(4, '2022-06-04T09:00:00Z', 'Joanna: The support group was so powerful.'),
  ];
  const now = at('2022-06-10T00:00:00Z');
  const options = { limit: 3, radius: 'all' as const };

  it('finds the memory about the day a question names, written the day after', () => {
    const hits = new RecallEngine(docs, S).recall('What film did Joanna watch on 1 May, 2022?', options, now);
    expect(hits[0]!.doc.id).toBe(id(0));
    // without dates, the film memories tie on words and the most recent one leads
    const plain = new RecallEngine(docs, resolveSettings({ recall: { dateWeight: 0, whenWeight: 0 } })).recall('What film did Joanna watch on 1 May, 2022?', options, now);
    expect(plain[0]!.doc.id).toBe(id(2));
  });

  it('answers a question about when with the memory that says when', () => {
    const hits = new RecallEngine(docs, S).recall('When did Joanna go to the support group?', options, now);
    expect(hits.map((h) => h.doc.id).slice(0, 2)).toEqual([id(3), id(4)]);
    const plain = new RecallEngine(docs, resolveSettings({ recall: { whenWeight: 0 } })).recall('When did Joanna go to the support group?', options, now);
    expect(plain.map((h) => h.doc.id).slice(0, 2)).toEqual([id(4), id(3)]);
  });

  it('lifts the memories that say when among those sharing a word with the question, never one that only names a time', () => {
    const standup = [
      memory(10, '2022-05-02T09:00:00Z', 'The standup moved to 10:15 from Monday.'),
      memory(11, '2022-06-08T09:00:00Z', 'Integration tests use Testcontainers: mocks hid a migration bug last year.'),
      memory(12, '2022-06-09T09:00:00Z', 'The local database was slow today.'),
    ];
    const hits = new RecallEngine(standup, S).recall('When is the standup?', options, now);
    expect(hits.map((h) => h.doc.id)).toEqual([id(10)]);
    expect(hits[0]!.explain.lexical).toBeGreaterThan(new RecallEngine(standup, resolveSettings({ recall: { whenWeight: 0 } })).recall('When is the standup?', options, now)[0]!.explain.lexical);
  });

  it('leaves the length of a memory to its words', () => {
    // a memory naming a day scores like one of as many words naming only a year
    const a = memory(5, '2022-06-01T09:00:00Z', 'Deploys freeze from May 3 2022 the week after');
    const b = memory(6, '2022-06-01T09:00:00Z', 'Deploys freeze from red 3 2022 the sky after');
    expect([a.facets!.length, b.facets!.length]).toEqual([6, 4]);
    const hits = new RecallEngine([a, b], S).recall('deploys freeze', options, now);
    expect(hits[0]!.explain.lexical).toBe(hits[1]!.explain.lexical);
  });
});
