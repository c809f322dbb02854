import { decodeClusterMemo, encodeClusterMemo, type MemoBasis } from '../../../src/core/consolidation/cluster-memo';

/** What the memo was read and written with before (JSON.parse and JSON.stringify of the whole object). */
function referenceDecode(text: string, basis: MemoBasis): Map<string, string> | null {
  try {
    const memo = JSON.parse(text) as { model?: unknown; threshold?: unknown; labels?: unknown };
    if (memo.model !== basis.model || memo.threshold !== basis.threshold || typeof memo.labels !== 'object' || memo.labels === null) return null;
    return new Map(Object.entries(memo.labels as Record<string, string>));
  } catch {
    return null;
  }
}
const referenceEncode = (basis: MemoBasis, labels: Map<string, string>) => JSON.stringify({ ...basis, labels: Object.fromEntries(labels) });
const entries = (map: Map<string, string> | null) => (map ? [...map] : null);

let seed = 11;
const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
const ALPHABET = ['a', 'b', '0', '7', ':', '-', ' ', '"', '\\', '\n', '\u0001', 'é', '\u{1f600}', '\ud800', '{', '}', ',', '/'];
const word = (plain: boolean) => Array.from({ length: Math.floor(rand() * 6) }, () => ALPHABET[Math.floor(rand() * (plain ? 8 : ALPHABET.length))]!).join('');

describe('the cluster memo, written and read by hand', () => {
  const basis: MemoBasis = { model: 'ollama:m@http://127.0.0.1:1', threshold: 0.82 };

  it('writes what JSON.stringify of the whole object writes, and reads back what JSON.parse reads', () => {
    for (let trial = 0; trial < 400; trial++) {
      const plain = trial % 2 === 0;
      const labels = new Map<string, string>();
      const count = Math.floor(rand() * 8);
      for (let k = 0; k < count; k++) {
        // memo keys hold a ':' (id:hash); now and then one an object would order first, or __proto__
        const pick = rand();
        const key = pick < 0.05 ? String(Math.floor(rand() * 20)) : pick < 0.08 ? '__proto__' : `${word(plain)}:${word(plain)}`;
        labels.set(key, rand() < 0.5 ? '' : word(plain));
      }
      const b = trial % 5 === 0 ? { model: word(plain), threshold: rand() } : basis;
      const text = encodeClusterMemo(b, labels);
      expect(text).toBe(referenceEncode(b, labels));
      expect(entries(decodeClusterMemo(text, b))).toEqual(entries(referenceDecode(text, b)));
      // another model or threshold: nothing carried
      expect(decodeClusterMemo(text, { ...b, threshold: b.threshold + 1 })).toBeNull();
      expect(decodeClusterMemo(text, { ...b, model: `${b.model}x` })).toBeNull();
    }
  });

  it('reads every cut, edit and other shape of the file as JSON.parse does', () => {
    const labels = new Map([
      ['mem-aaaaaaaaaaaa:0123456789abcdef', 'mem-aaaaaaaaaaaa:0123456789abcdef'],
      ['mem-bbbbbbbbbbbb:fedcba9876543210', ''],
      ['mem-cccccccccccc:0000000000000000', 'mem-aaaaaaaaaaaa:0123456789abcdef'],
    ]);
    const text = encodeClusterMemo(basis, labels);
    const head = text.slice(0, text.indexOf(',"labels"'));
    const body = text.slice(head.length);
    const variants = [
      text,
      `${head},"labels":{}}`,
      `${head},"labels":{"a:b":"x","a:b":"y"}}`,
      `${head},"labels":{"a:b":"x",}}`,
      `${head},"labels":{"a:b":"x""c:d":""}}`,
      `${head},"labels":{"a:b":"x"},"more":1}`,
      `${head},"labels":{"a:b":{"c":"d"}}}`,
      `${head},"labels":{"a:b":3}}`,
      `${head},"labels":{"b:c":"x","12":"y","7":""}}`,
      `${head},"labels":["a:b"]}`,
      `${head},"labels":{"a\\u003ab":"x"}}`,
      `${head},"labels":{"a:b":"x\ty"}}`,
      `${head},"labels":{"a:b" :"x"}}`,
      `${head},"labels":{"a:b":"x"}} `,
      `${head},"labels":{"a:b":"x"}}}`,
      `${head},"labels":{"a:b":"x"}`,
      `${head},"labels":{"a:b":"x}}`,
      `{"threshold":0.82,"model":"${basis.model}"${body}`,
      `{"model":"${basis.model}","threshold":0.820${body}`,
      `{"model":"${basis.model}","threshold":0.82,"x":1${body}`,
      `{"model":"${basis.model}","threshold":"0.82"${body}`,
      `{"model":"${basis.model}", "threshold":0.82${body}`,
      `{"model":"${basis.model}","labels":{"q:r":""},"threshold":0.82${body}`,
      `{"model":"${basis.model}","threshold":0.82,"labels":{"q:r":""}${body}`,
      `{"model":"${basis.model}","threshold":0.82,"labels":7${body}`,
      'null',
      '',
    ];
    const cuts = Array.from({ length: text.length }, (_, k) => text.slice(0, k));
    for (const variant of [...variants, ...cuts]) expect([variant, entries(decodeClusterMemo(variant, basis))]).toEqual([variant, entries(referenceDecode(variant, basis))]);
  });

  it('reads the file it writes without parsing the labels as JSON', () => {
    const labels = new Map(Array.from({ length: 1000 }, (_, k) => [`mem-${k.toString(16).padStart(12, '0')}:${'0'.repeat(16)}`, k % 2 ? '' : 'mem-000000000000:0000000000000000']));
    const text = encodeClusterMemo(basis, labels);
    const parse = jest.spyOn(JSON, 'parse');
    try {
      expect(entries(decodeClusterMemo(text, basis))).toEqual([...labels]);
      // only the head (model and threshold) went through JSON.parse
      expect(parse.mock.calls.map(([given]) => given.length)).toEqual([text.indexOf(',"labels"') + 1]);
    } finally {
      parse.mockRestore();
    }
  });
});
