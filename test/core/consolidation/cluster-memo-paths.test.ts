import { CLUSTER_MEMO_PATH, decodeClusterMemo, encodeClusterMemo, loadClusterMemo, saveClusterMemo, type MemoBasis } from '../../../src/core/consolidation/cluster-memo';
import { memoryVault } from '../../helpers/memory-ports';

/**
 * Which way decodeClusterMemo read a memo: 'hand' (only the head through JSON.parse), 'whole'
 * (JSON.parse of the whole text, the head never tried), 'both' (the head tried, then the whole).
 * The result is the same either way (cluster-memo.test.ts compares it with JSON.parse); each
 * guard of the hand reader decides which way, so each variant below is one a single guard catches.
 * (StrykerJS on cluster-memo.ts with this file: 109 of 125 mutants killed; the 16 left change no
 * way and no result: guards the earlier ones already imply, such as `open <= 0` after the text
 * was seen to start with '{"model":"', `labelEnd >= end` that no text ending in '}}' reaches,
 * `memo.labels === null` that Object.entries' throw already turns into null, or the shortcut
 * `key.charCodeAt(0) <= 57` before the digits' pattern.)
 */
function pathOf(text: string, basis: MemoBasis): { path: string; labels: Array<[string, string]> | null } {
  const parse = jest.spyOn(JSON, 'parse');
  try {
    const map = decodeClusterMemo(text, basis);
    const lengths = parse.mock.calls.map(([given]) => given.length);
    const head = text.indexOf(',"labels":{') + 1;
    const path = lengths.length === 1 && lengths[0] === head ? 'hand' : lengths.length === 1 && lengths[0] === text.length ? 'whole' : lengths.length === 2 && lengths[0] === head && lengths[1] === text.length ? 'both' : `other ${lengths.join(',')}`;
    return { path, labels: map ? [...map] : null };
  } finally {
    parse.mockRestore();
  }
}

describe('the cluster memo: the way each text is read', () => {
  const basis: MemoBasis = { model: 'm', threshold: 0.5 };
  const head = '{"model":"m","threshold":0.5';

  it.each([
    // as encodeClusterMemo writes it: by hand
    ['written', `${head},"labels":{"a:b":"x","c:d":""}}`, 'hand', [['a:b', 'x'], ['c:d', '']]],
    ['a key that starts with a digit but is no array index', `${head},"labels":{"7a:b":"x"}}`, 'hand', [['7a:b', 'x']]],
    ['a key that starts and ends with digits but is no array index', `${head},"labels":{"7a:9":"x"}}`, 'hand', [['7a:9', 'x']]],
    ['no labels', `${head},"labels":{}}`, 'hand', []],
    // the first look (start, labels, end, escapes) sends it to JSON.parse whole
    ['white space before', ` ${head},"labels":{"a:b":"x"}}`, 'whole', [['a:b', 'x']]],
    ['white space after', `${head},"labels":{"a:b":"x"}} `, 'whole', [['a:b', 'x']]],
    ['no labels field', `${head}}}`, 'whole', null],
    ['an escape', `${head},"labels":{"a:b":"x\\u0041"}}`, 'whole', [['a:b', 'xA']]],
    ['labels not an object', `${head},"labels":7}`, 'whole', null],
    // the head is not what encodeClusterMemo writes: the head is tried, then the whole
    ['a threshold written another way', '{"model":"m","threshold":0.50,"labels":{"a:b":"x"}}', 'both', [['a:b', 'x']]],
    ['a threshold as a string', '{"model":"m","threshold":"0.5","labels":{"a:b":"x"}}', 'both', null],
    ['a head that is no JSON', '{"model":"m","threshold":,"labels":{"a:b":"x"}}', 'both', null],
    // the labels are not as written: the hand reader gives up after the head
    ['a key without its opening quote', `${head},"labels":{x":"y"}}`, 'both', null],
    ['a key not followed by a colon', `${head},"labels":{"a:b"x"y"}}`, 'both', null],
    ['a label without its opening quote', `${head},"labels":{"a:b":x","c:d":"e"}}`, 'both', null],
    ['two pairs without a comma', `${head},"labels":{"a:b":"x"X"c:d":"y"}}`, 'both', null],
    ['a comma before the end', `${head},"labels":{"a:b":"x",}}`, 'both', null],
    ['an array index as a key (JSON.parse puts it first)', `${head},"labels":{"b:c":"x","9":"y"}}`, 'both', [['9', 'y'], ['b:c', 'x']]],
    ['a key made of digits only', `${head},"labels":{"b:c":"x","10":"y"}}`, 'both', [['10', 'y'], ['b:c', 'x']]],
  ])('%s', (_, text, path, labels) => {
    expect(pathOf(text, basis)).toEqual({ path, labels });
  });

  it('is written to and read from .engram/cache/clusters.json, and a missing file is no memo', async () => {
    const { vault, files } = memoryVault('2026-12-03T12:00:00Z');
    expect(CLUSTER_MEMO_PATH).toBe('.engram/cache/clusters.json');
    expect(await loadClusterMemo(vault, basis)).toBeNull();
    const labels = new Map([['a:b', 'a:b'], ['c:d', 'a:b']]);
    await saveClusterMemo(vault, basis, labels);
    expect(files.files.get('.engram/cache/clusters.json')).toBe(encodeClusterMemo(basis, labels));
    expect([...(await loadClusterMemo(vault, basis))!]).toEqual([...labels]);
    expect(await loadClusterMemo(vault, { ...basis, threshold: 0.6 })).toBeNull();
    files.files.set('.engram/cache/clusters.json', '');
    expect(await loadClusterMemo(vault, basis)).toBeNull();
  });
});
