import { summarisePattern, MAX_QUOTE } from '../../../src/core/consolidation/pattern-summary';
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
