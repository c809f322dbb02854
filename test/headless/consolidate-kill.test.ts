import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { engram, tempDir } from '../helpers/cli';

const ENGRAM = path.join(__dirname, '..', '..', 'dist', 'engram.js');
const NOW = '2026-11-29T12:00:00Z';
const POINTS = ['plan-written', 'moved-one', 'pruned', 'semantic-written', 'clustered', 'tiers-written', 'logged'];

/** Every memory-folder file with its content, without the run-time fields. */
function state(vault: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const folder of ['episodic', 'semantic', 'decisions', 'archive', 'conflicts']) {
    for (const name of readdirSync(path.join(vault, folder))) out[`${folder}/${name}`] = readFileSync(path.join(vault, folder, name), 'utf8');
  }
  return out;
}

describe('consolidation killed with SIGKILL at any point (real processes)', () => {
  let dir: string;
  let cleanup: () => void;
  let template: string;

  beforeAll(async () => {
    ({ dir, cleanup } = tempDir());
    template = path.join(dir, 'template');
    await engram(template, ['init']);
    const texts = [
      ['The session expiry test flaked on CI because its timeout is too short.', '2026-11-20T10:00:00Z'],
      ['Session expiry test failed in the nightly pipeline; timeout too short.', '2026-11-21T10:00:00Z'],
      ['The nightly CI run flaked: session expiry timeout is too short.', '2026-11-22T10:00:00Z'],
      ['A passing remark about the build cache.', '2026-08-01T00:00:00Z'],
      ['Another forgotten remark about lint output.', '2026-07-01T00:00:00Z'],
      ['Staging was slow last week.', '2026-11-15T00:00:00Z'],
    ];
    for (const [text, at] of texts) await engram(template, ['--now', at!, 'remember', text!]);
  });
  afterAll(() => cleanup());

  const fresh = (name: string) => {
    const vault = path.join(dir, name);
    cpSync(template, vault, { recursive: true });
    return vault;
  };
  /** The run that is killed: a real process (SIGKILL at `crashAt`, ENGRAM_CRASH_AT). */
  const killedRun = (vault: string, crashAt: string) =>
    spawnSync(process.execPath, [ENGRAM, '--vault', vault, '--now', NOW, 'consolidate'], { encoding: 'utf8', env: { ...process.env, ENGRAM_CRASH_AT: crashAt } });
  /** The reference and the next runs are not about the process: in process (the same code as dist/, one start fewer each). */
  const consolidate = (vault: string) => engram(vault, ['--now', NOW, 'consolidate']);

  it('the next run completes the work: the same files as an uninterrupted run, no duplicate, nothing lost', async () => {
    const reference = fresh('reference');
    expect((await consolidate(reference)).code).toBe(0);
    const expected = state(reference);
    expect(Object.keys(expected).filter((p) => p.startsWith('semantic/'))).toHaveLength(1);
    expect(Object.keys(expected).filter((p) => p.startsWith('archive/'))).toHaveLength(2);
    for (const point of POINTS) {
      const vault = fresh(`killed-${point}`);
      const killed = killedRun(vault, point);
      expect([point, killed.signal]).toEqual([point, 'SIGKILL']);
      // killed while moving alone (two moves, no other process): its gate is left, and taken over as the lock of a process that died
      const gate = path.join(vault, '.engram', 'locks', 'moves.gate.lock');
      expect([point, existsSync(gate)]).toEqual([point, point === 'moved-one']);
      const after = await consolidate(vault);
      expect([point, after.code, after.stderr]).toEqual([point, 0, '']);
      expect([point, state(vault)]).toEqual([point, expected]);
      expect(existsSync(path.join(vault, '.engram', 'consolidation-plan.json'))).toBe(false);
      expect(existsSync(path.join(vault, '.engram', 'locks', 'consolidate.lock'))).toBe(false);
      expect(existsSync(gate)).toBe(false);
    }
  }, 120_000);
});
