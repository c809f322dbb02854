import { sha256 as noble } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { sha256 } from '../../headless/node-sha2';
import { seededRandom } from '../../src/core/random';

/** The Node builds hash with OpenSSL (esbuild aliases noble's sha256 to headless/node-sha2.ts): the same digests as noble's. */
describe("the Node build's sha256", () => {
  it('gives the known digests', () => {
    expect(bytesToHex(sha256(new Uint8Array()))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(bytesToHex(sha256(new TextEncoder().encode('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it("equals noble's on 1,000 random inputs of 0 to 4,999 bytes", () => {
    const random = seededRandom('node-sha2');
    for (let k = 0; k < 1000; k++) {
      const bytes = Uint8Array.from({ length: Math.floor(random() * 5000) }, () => Math.floor(random() * 256));
      expect(bytesToHex(sha256(bytes))).toBe(bytesToHex(noble(bytes)));
    }
  });

  it("gives a text's hex digest as noble's of its UTF-8 bytes, on 1,000 random texts (lone surrogates, astral and multi-byte letters)", () => {
    const random = seededRandom('node-sha2-hex');
    const alphabet = ['a', ' ', '\n', 'é', 'İ', '€', '😀', '\ud800', '\udc00', '\u0000', '"'];
    expect(sha256.hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (let k = 0; k < 1000; k++) {
      const text = Array.from({ length: Math.floor(random() * 300) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      expect(sha256.hex(text)).toBe(bytesToHex(noble(utf8ToBytes(text))));
    }
  });
});
