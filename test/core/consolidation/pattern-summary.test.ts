import { summarisePattern, patternExample, MAX_QUOTE } from '../../../src/core/consolidation/pattern-summary';
import { parseMemory, type Memory } from '../../../src/core/memory';
import { resolveSettings } from '../../../src/core/settings';

const settings = resolveSettings(undefined);

function episode(n: number, text: string, created: string, role?: string): Memory {
  const id = `mem-${String(n).padStart(12, '0')}`;
  const fields = [`id: ${id}`, 'category: episodic', `created_at: "${created}"`, ...(role ? [`agent_role: ${role}`] : [])];
  return parseMemory(`episodic/${id}.md`, `---\n${fields.join('\n')}\n---\n${text}\n`, settings);
}

describe('the text of a semantic memory (pattern-summary)', () => {
  const members = [
    episode(1, 'Reviewed PR #66: console.log left in the webhook handler.', '2026-11-03T09:00:00Z', 'code-reviewer'),
    episode(2, "Reviewed PR #71: a console.log call in the payments webhook.", '2026-11-10T09:00:00Z', 'code-reviewer'),
    episode(3, 'Console logging left in the handler of PR #80 again.', '2026-11-17T09:00:00Z', 'code-reviewer'),
    episode(4, 'Found console.log in the retry handler while testing.', '2026-11-20T09:00:00Z', 'tester'),
  ];

  it('states what recurs, how often, when, who and quotes the medoid', () => {
    const summary = summarisePattern(members, members[0]!, ['review']);
    expect(summary.text).toBe(
      'Recurring pattern in 4 episodes between 2026-11-03 and 2026-11-20: console (4 of 4), log (4 of 4), pr (3 of 4), handler (3 of 4), reviewed (2 of 4), left (2 of 4), webhook (2 of 4).\n' +
        'Roles: code-reviewer (3), tester (1).\n' +
        'Tags: review.\n' +
        'Example (the most representative episode): "Reviewed PR #66: console.log left in the webhook handler."',
    );
    expect(summary.agent_role).toBe('code-reviewer');
  });

  it('is the same whatever order the members come in', () => {
    expect(summarisePattern([...members].reverse(), members[0]!, ['review'])).toEqual(summarisePattern(members, members[0]!, ['review']));
  });

  it('one day, no roles, no tags, nothing shared by two: a shorter statement; a long example is cut at a word', () => {
    const long = `Alpha ${'word '.repeat(80)}end.`;
    const few = [episode(5, long, '2026-11-01T08:00:00Z'), episode(6, 'Beta gamma.', '2026-11-01T20:00:00Z'), episode(7, 'Delta epsilon.', '2026-11-01T21:00:00Z')];
    const summary = summarisePattern(few, few[0]!, []);
    const [head, example] = summary.text.split('\n');
    expect(head).toBe('Recurring pattern in 3 episodes on 2026-11-01.');
    expect(example!.startsWith('Example (the most representative episode): "Alpha word word')).toBe(true);
    expect(example!.endsWith('word…"')).toBe(true);
    expect(example!.length).toBeLessThanOrEqual('Example (the most representative episode): ""'.length + MAX_QUOTE);
    expect(summary.agent_role).toBeNull();
  });

  it('no role when the members are split evenly between two', () => {
    const split = [episode(8, 'Cache warmed.', '2026-11-01T08:00:00Z', 'a'), episode(9, 'Cache warmed again.', '2026-11-02T08:00:00Z', 'b')];
    expect(summarisePattern(split, split[0]!, []).agent_role).toBeNull();
  });

  it("a transcript's speaker names are roles, not what recurs; contractions say nothing on their own", () => {
    const turns = [
      episode(10, "Gina: Can't wait for the studio opening!", '2023-05-11T09:00:00Z', 'Gina'),
      episode(11, "Gina: Can't wait, the studio opens soon.", '2023-06-01T09:00:00Z', 'Gina'),
      episode(12, 'Jon: The studio opening is close, Gina.', '2023-06-19T09:00:00Z', 'Jon'),
    ];
    expect(summarisePattern(turns, turns[0]!, []).text.split('\n').slice(0, 2)).toEqual([
      'Recurring pattern in 3 episodes between 2023-05-11 and 2023-06-19: studio (3 of 3), opening (3 of 3), wait (2 of 3).',
      'Roles: Gina (2), Jon (1).',
    ]);
  });
});

describe('pattern-summary rules at their edges (issue 25, Stryker survivors)', () => {
  it('a role held by exactly half of the members is the pattern\'s role; one below half is not', () => {
    const half = [episode(20, 'Cache warmed.', '2026-11-01T08:00:00Z', 'ops'), episode(21, 'Cache warmed.', '2026-11-02T08:00:00Z', 'ops'), episode(22, 'Cache warmed.', '2026-11-03T08:00:00Z'), episode(23, 'Cache warmed.', '2026-11-04T08:00:00Z')];
    expect(summarisePattern(half, half[0]!, []).agent_role).toBe('ops');
    const less = [...half.slice(1), episode(24, 'Cache warmed.', '2026-11-05T08:00:00Z')];
    expect(summarisePattern(less, less[0]!, []).agent_role).toBeNull();
    // roles ordered by count, then by name
    expect(summarisePattern([...half, episode(25, 'Cache warmed.', '2026-11-05T08:00:00Z', 'dev'), episode(26, 'Cache warmed.', '2026-11-06T08:00:00Z', 'dev')], half[0]!, []).text.split('\n')[1]).toBe('Roles: dev (2), ops (2).');
  });

  it('a word must be in at least half of the members and in two: 3 of 5 is shown, 2 of 5 is not; 2 of 2 is', () => {
    const five = [
      episode(30, 'Alpha beta gamma.', '2026-11-01T08:00:00Z'),
      episode(31, 'Alpha beta delta.', '2026-11-02T08:00:00Z'),
      episode(32, 'Alpha gamma.', '2026-11-03T08:00:00Z'),
      episode(33, 'Epsilon zeta.', '2026-11-04T08:00:00Z'),
      episode(34, 'Eta theta.', '2026-11-05T08:00:00Z'),
    ];
    expect(summarisePattern(five, five[0]!, []).terms).toEqual(['alpha']);
    const two = [episode(35, 'Kappa lambda.', '2026-11-01T08:00:00Z'), episode(36, 'Kappa mu.', '2026-11-01T09:00:00Z')];
    expect(summarisePattern(two, two[0]!, []).terms).toEqual(['kappa']);
    expect(summarisePattern([two[0]!], two[0]!, []).terms).toEqual([]);
  });

  it('at most MAX_TERMS words; equal counts in the medoid\'s order, words the medoid lacks after them in text order', () => {
    const words = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
    const many = [episode(40, words.join(' '), '2026-11-01T08:00:00Z'), episode(41, [...words].reverse().join(' '), '2026-11-02T08:00:00Z')];
    expect(summarisePattern(many, many[1]!, []).terms).toEqual(['ten', 'nine', 'eight', 'seven', 'six', 'five', 'four', 'three']);
    const apart = [episode(42, 'Zulu yankee.', '2026-11-01T08:00:00Z'), episode(43, 'Zulu yankee xray.', '2026-11-02T08:00:00Z'), episode(44, 'Xray whiskey.', '2026-11-03T08:00:00Z')];
    // each in 2 of 3: xray, which the medoid says, first; yankee and zulu, which it does not, in text order
    expect(summarisePattern(apart, apart[2]!, []).terms).toEqual(['xray', 'yankee', 'zulu']);
  });

  it('each word in its most frequent form; a tie: the medoid\'s form, then the first in text order', () => {
    const forms = [episode(50, 'Tests failing.', '2026-11-01T08:00:00Z'), episode(51, 'Test failing.', '2026-11-02T08:00:00Z'), episode(52, 'Tests failed.', '2026-11-03T08:00:00Z')];
    expect(summarisePattern(forms, forms[1]!, []).terms).toEqual(['tests', 'failing']);
    const tie = [episode(53, 'Tests run.', '2026-11-01T08:00:00Z'), episode(54, 'Test run.', '2026-11-02T08:00:00Z')];
    expect(summarisePattern(tie, tie[1]!, []).terms).toEqual(['test', 'run']);
    expect(summarisePattern(tie, tie[0]!, []).terms).toEqual(['tests', 'run']);
  });

  it('content words: quotes and possessives trimmed, single letters, numbers and negated words dropped', () => {
    const texts = [episode(60, "The server’s log: x 42 isn't 'quoted' `cache`", '2026-11-01T08:00:00Z'), episode(61, "server's log x 42 isn't quoted cache", '2026-11-02T08:00:00Z')];
    expect(summarisePattern(texts, texts[1]!, []).terms).toEqual(['server', 'log', 'quoted', 'cache']);
  });

  it('the quote: whitespace flattened, double quotes as single; cut at a word only past half of MAX_QUOTE', () => {
    const plain = [episode(70, 'Said  "hi"\n there.', '2026-11-01T08:00:00Z')];
    expect(summarisePattern(plain, plain[0]!, []).text.split('\n').pop()).toBe('Example (the most representative episode): "Said \'hi\' there."');
    const exact = [episode(71, 'a'.repeat(MAX_QUOTE), '2026-11-01T08:00:00Z')];
    expect(summarisePattern(exact, exact[0]!, []).text.split('\n').pop()).toBe(`Example (the most representative episode): "${'a'.repeat(MAX_QUOTE)}"`);
    const solid = [episode(72, `ab ${'c'.repeat(MAX_QUOTE)}`, '2026-11-01T08:00:00Z')];
    expect(summarisePattern(solid, solid[0]!, []).text.split('\n').pop()).toBe(`Example (the most representative episode): "ab ${'c'.repeat(MAX_QUOTE - 4)}…"`);
    const half = `${'d'.repeat(MAX_QUOTE / 2)} ${'e'.repeat(MAX_QUOTE)}`;
    expect(summarisePattern([episode(73, half, '2026-11-01T08:00:00Z')], episode(73, half, '2026-11-01T08:00:00Z'), []).text.split('\n').pop()).toBe(`Example (the most representative episode): "${half.slice(0, MAX_QUOTE - 1)}…"`);
    const past = `${'d'.repeat(MAX_QUOTE / 2 + 1)}  ${'e'.repeat(MAX_QUOTE)}`;
    expect(summarisePattern([episode(74, past, '2026-11-01T08:00:00Z')], episode(74, past, '2026-11-01T08:00:00Z'), []).text.split('\n').pop()).toBe(`Example (the most representative episode): "${'d'.repeat(MAX_QUOTE / 2 + 1)}…"`);
  });

  it('patternExample reads the quote back, and null without one', () => {
    const one = [episode(80, 'Cache warmed.', '2026-11-01T08:00:00Z')];
    expect(patternExample(summarisePattern(one, one[0]!, []).text)).toBe('Cache warmed.');
    expect(patternExample('Recurring pattern in 2 episodes.\nExample (the most representative episode): ""')).toBeNull();
    expect(patternExample('no example here')).toBeNull();
    expect(patternExample('x Example (the most representative episode): "a"')).toBeNull();
  });
});
