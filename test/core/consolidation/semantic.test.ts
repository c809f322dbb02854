// Consolidation's clustering plan (src/core/consolidation/semantic.ts) in process, lexical
// similarity: a new pattern for a group of like episodes, a reinforcement of the pattern most of
// them already decay into, and nothing when every member is in it already.
import { planClusters, semanticId, PATTERN_TITLE_CHARS } from '../../../src/core/consolidation/semantic';
import { parseMemory, type Memory } from '../../../src/core/memory';
import { DEFAULT_SETTINGS as S } from '../../../src/core/settings';
import { sha256Hex } from '../../../src/core/ids';
import { memoryNote } from '../../helpers/memory-ports';

const E1 = 'mem-e1e1e1e1e1e1';
const E2 = 'mem-e2e2e2e2e2e2';
const E3 = 'mem-e3e3e3e3e3e3';
const E4 = 'mem-e4e4e4e4e4e4';
const P = 'mem-pppppppppppp';
const Q = 'mem-qqqqqqqqqqqq';

const TEXT = 'The nightly deploy failed because the build cache was cold after the runner restarted';

function note(id: string, category: string, body: string, yaml = '', fields: Record<string, string | number | boolean> = {}): Memory {
  const text = memoryNote({ id, category, created_at: '2026-05-01T00:00:00Z', last_accessed_at: '2026-05-01T00:00:00Z', ...fields }, body);
  return parseMemory(`${category === 'semantic' ? 'semantic' : 'episodic'}/${id}.md`, yaml ? text.replace('\n---\n', `\n${yaml}\n---\n`) : text, S);
}

const episodes = (links: Record<string, string> = {}) => [
  note(E3, 'episodic', `${TEXT} again.${links[E3] ?? ''}\n`, 'tags:\n  - deploy\nrelated_paths:\n  - ci/build.yml'),
  note(E1, 'episodic', `${TEXT}.${links[E1] ?? ''}\n`, 'tags:\n  - deploy\n  - cache\nrelated_paths:\n  - ci/runner.sh\n  - ci/build.yml'),
  note(E2, 'episodic', `${TEXT} today.${links[E2] ?? ''}\n`, 'tags:\n  - flaky'),
  note(E4, 'episodic', 'Lunch was pizza on Friday with the whole team.\n'),
];

describe('planClusters (lexical)', () => {
  it('semanticId: the sorted members hashed', () => {
    expect(semanticId([E2, E1])).toBe(`mem-${sha256Hex(`${E1}|${E2}`).slice(0, 12)}`);
    expect(semanticId([E1, E2])).toBe(semanticId([E2, E1]));
  });

  it('a group of like episodes makes a new pattern: members sorted, tags half of them share, paths united, inferred', () => {
    const all = episodes();
    const memo = { previous: null } as { previous: null; next?: Map<string, string> };
    const actions = planClusters(all, all, null, S, memo);
    expect(actions).toHaveLength(1);
    const [a] = actions;
    expect(a).toMatchObject({
      id: semanticId([E1, E2, E3]),
      action: 'create',
      members: [E1, E2, E3],
      new_members: [E1, E2, E3],
      tags: ['deploy'],
      related_paths: ['ci/build.yml', 'ci/runner.sh'],
      reinforcement_count: 1,
      confidence: 'inferred',
      similarity: 'lexical',
    });
    // the pattern summary (pattern-summary.ts) around the medoid (E3 here), the title from the medoid cut at 48 characters
    expect(a!.text).toBe(
      'Recurring pattern in 3 episodes on 2026-05-01: nightly (3 of 3), deploy (3 of 3), failed (3 of 3), build (3 of 3), cache (3 of 3), cold (3 of 3), runner (3 of 3), restarted (3 of 3).\nTags: deploy.\nExample (the most representative episode): "The nightly deploy failed because the build cache was cold after the runner restarted again."',
    );
    expect(a!.title!.length <= PATTERN_TITLE_CHARS).toBe(true);
    expect(a!.title).toBe('The nightly deploy failed because the build');
    expect(a!.agent_role).toBeNull();
    // this run's groups are kept for the next
    expect(memo.next).toBeInstanceOf(Map);
    expect(memo.next!.size).toBe(4);
  });

  it('episodes only: a semantic memory or decision among the live ones is not clustered', () => {
    const all = [...episodes().slice(0, 2), note(P, 'semantic', `${TEXT} pattern.\n`)];
    expect(planClusters(all, all, null, S)).toEqual([]);
  });

  it('the pattern most members decay into is reinforced with the fresh members; its count confirms it at 3', () => {
    const pattern = note(P, 'semantic', 'Recurring pattern: cold build caches.\n', '', { reinforcement_count: 2, confidence: 'inferred' });
    const other = note(Q, 'semantic', 'Another pattern.\n');
    const all = [...episodes({ [E1]: ` [[${P}|decays_from]]`, [E2]: ` [[${P}|decays_from]] [[${Q}|decays_from]]`, [E3]: ` [[${Q}|decays_from]] [[${E4}|decays_from]]` }), pattern, other];
    const live = all.filter((m) => m.category === 'episodic');
    const [a] = planClusters(all, live, null, S);
    expect(a).toEqual({
      id: P,
      action: 'reinforce',
      members: [E1, E2, E3],
      new_members: [E3],
      text: 'Recurring pattern: cold build caches.',
      tags: ['deploy'],
      related_paths: ['ci/build.yml', 'ci/runner.sh'],
      reinforcement_count: 3,
      confidence: 'observed',
      similarity: 'lexical',
    });
  });

  it('a member linked to the pattern otherwise than by decays_from is still a fresh member', () => {
    const pattern = note(P, 'semantic', 'Recurring pattern: cold build caches.\n', '', { reinforcement_count: 2, confidence: 'inferred' });
    const all = [...episodes({ [E1]: ` [[${P}|decays_from]]`, [E2]: ` [[${P}|decays_from]]`, [E3]: ` [[${P}|related]]` }), pattern];
    const [a] = planClusters(all, all.filter((m) => m.category === 'episodic'), null, S);
    expect([a!.id, a!.action, a!.members, a!.new_members, a!.reinforcement_count]).toEqual([P, 'reinforce', [E1, E2, E3], [E3], 3]);
  });

  it('a tie between two patterns goes to the smaller id; a count not a number counts as 1; below the confirmations it stays inferred', () => {
    const pattern = note(P, 'semantic', 'Pattern P.\n', '', { reinforcement_count: 'many', confidence: 'inferred' });
    const other = note(Q, 'semantic', 'Pattern Q.\n', '', { confidence: 'verified' });
    const all = [...episodes({ [E1]: ` [[${Q}|decays_from]]`, [E2]: ` [[${P}|decays_from]]` }), pattern, other];
    const [a] = planClusters(all, all.filter((m) => m.category === 'episodic'), null, S);
    expect([a!.id, a!.new_members, a!.reinforcement_count, a!.confidence]).toEqual([P, [E1, E3], 2, 'inferred']);
    // a verified pattern keeps its confidence
    const onlyQ = [...episodes({ [E1]: ` [[${Q}|decays_from]]` }), other];
    const [b] = planClusters(onlyQ, onlyQ.filter((m) => m.category === 'episodic'), null, S);
    expect([b!.id, b!.reinforcement_count, b!.confidence]).toEqual([Q, 2, 'verified']);
  });

  it('nothing to do when every member already decays into the pattern', () => {
    const pattern = note(P, 'semantic', 'Pattern.\n');
    const link = ` [[${P}|decays_from]]`;
    const all = [...episodes({ [E1]: link, [E2]: link, [E3]: link }), pattern];
    expect(planClusters(all, all.filter((m) => m.category === 'episodic'), null, S)).toEqual([]);
  });

  it('fewer like episodes than the minimum cluster size: no pattern', () => {
    const all = episodes().slice(1);
    expect(planClusters(all, all, null, S)).toEqual([]);
  });
});
