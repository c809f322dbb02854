/*
 * Porter2 stemming as wink-porter2-stemmer 2.0.1 does it, with the same stem for every input
 * (its quirks included), made cheaper: a first recall stems each of a vault's distinct words
 * (15,000 at 10k memories), and wink's stem computed the R1/R2 regions five times a word (two
 * regular expressions each) and ran every step's expressions on words that lack its suffixes.
 * Here a step whose suffixes the word does not end with returns at once, and the regions are
 * computed only when a step's suffix is found (they are a pure function of the word, and each
 * step read them only then). Everything else is wink's code. test/core/analysis-fast.test.ts compares
 * it with the package over word lists.
 *
 * One quirk is not kept: wink marks a y that acts as a consonant with the digit '3', so a 3 in the
 * word itself was taken for that mark: "413" stemmed to "41i", "mp3" to "mpi" (MPI's stem), "x3d"
 * to "xyd" and "2023" to "202i". The mark here is an upper-case 'Y', which a lower-cased word
 * cannot hold; every word without a 3 stems as wink stems it, and a 3 is a plain character.
 *
 * Derived from wink-porter2-stemmer (https://github.com/winkjs/wink-porter2-stemmer):
 *
 *     Copyright (C) 2017-19  GRAYPE Systems Private Limited
 *
 *     Permission is hereby granted, free of charge, to any person obtaining a
 *     copy of this software and associated documentation files (the "Software"),
 *     to deal in the Software without restriction, including without limitation
 *     the rights to use, copy, modify, merge, publish, distribute, sublicense,
 *     and/or sell copies of the Software, and to permit persons to whom the
 *     Software is furnished to do so, subject to the following conditions:
 *
 *     The above copyright notice and this permission notice shall be included
 *     in all copies or substantial portions of the Software.
 *
 *     THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS
 *     OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 *     FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL
 *     THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 *     LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
 *     FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
 *     DEALINGS IN THE SOFTWARE.
 */

const rgxDouble = /(bb|dd|ff|gg|mm|nn|pp|rr|tt)$/;
const rgxSFXsses = /(.+)(sses)$/;
const rgxSFXiedORies2 = /(.{2,})(ied|ies)$/;
const rgxSFXiedORies1 = /(.{1})(ied|ies)$/;
const rgxSFXusORss = /(.+)(us|ss)$/;
const rgxSFXs = /(.+)(s)$/;
const rgxSFXeedlyOReed = /(.*)(eedly|eed)$/;
const rgxSFXedORedlyORinglyORing = /([aeiouy].*)(ed|edly|ingly|ing)$/;
const rgxSFXatORblORiz = /(at|bl|iz)$/;
const rgxSFXy = /(.+[^aeiouy])y$/;
const rgxSFXstep2 = /(ization|ational|fulness|ousness|iveness|tional|biliti|lessli|entli|ation|alism|aliti|ousli|iviti|fulli|enci|anci|abli|izer|ator|alli|bli|ogi|li)$/;
const rgxSFXstep2WithReplacements: Array<{ rgx: RegExp; replacement: string }> = [
  { rgx: /ational$/, replacement: 'ate' },
  { rgx: /ization$/, replacement: 'ize' },
  { rgx: /fulness$/, replacement: 'ful' },
  { rgx: /ousness$/, replacement: 'ous' },
  { rgx: /iveness$/, replacement: 'ive' },
  { rgx: /tional$/, replacement: 'tion' },
  { rgx: /biliti$/, replacement: 'ble' },
  { rgx: /lessli$/, replacement: 'less' },
  { rgx: /iviti$/, replacement: 'ive' },
  { rgx: /ousli$/, replacement: 'ous' },
  { rgx: /ation$/, replacement: 'ate' },
  { rgx: /entli$/, replacement: 'ent' },
  { rgx: /(.*)(alism|aliti)$/, replacement: '$1al' },
  { rgx: /fulli$/, replacement: 'ful' },
  { rgx: /alli$/, replacement: 'al' },
  { rgx: /ator$/, replacement: 'ate' },
  { rgx: /izer$/, replacement: 'ize' },
  { rgx: /enci$/, replacement: 'ence' },
  { rgx: /anci$/, replacement: 'ance' },
  { rgx: /abli$/, replacement: 'able' },
  { rgx: /bli$/, replacement: 'ble' },
  { rgx: /(.*)(l)(ogi)$/, replacement: '$1$2og' },
  { rgx: /(.*)([cdeghkmnrt])(li)$/, replacement: '$1$2' },
];
const rgxSFXstep3 = /(ational|tional|alize|icate|iciti|ative|ical|ness|ful)$/;
const rgxSFXstep3WithReplacements: Array<{ rgx: RegExp; replacement: string }> = [
  { rgx: /ational$/, replacement: 'ate' },
  { rgx: /tional$/, replacement: 'tion' },
  { rgx: /alize$/, replacement: 'al' },
  { rgx: /(.*)(icate|iciti|ical)$/, replacement: '$1ic' },
  { rgx: /(ness|ful)$/, replacement: '' },
];
const rgxSFXstep4 = /(ement|ance|ence|able|ible|ment|ant|ent|ism|ate|iti|ous|ive|ize|al|er|ic)$/;
const rgxSFXstep4Full = /(ement|ance|ence|able|ible|ment|ant|ent|ism|ate|iti|ous|ive|ize|ion|al|er|ic)$/;
const rgxSFXstep4ion = /(.*)(s|t)(ion)$/;
const exceptions1: Record<string, string> = Object.create(null) as Record<string, string>;
Object.assign(exceptions1, {
  skis: 'ski', skies: 'sky', dying: 'die', lying: 'lie', tying: 'tie', idly: 'idl', gently: 'gentl', ugly: 'ugli',
  early: 'earli', only: 'onli', singly: 'singl', sky: 'sky', news: 'news', atlas: 'atlas', cosmos: 'cosmos', bias: 'bias', andes: 'andes',
});
const rgxException2 = /^(inning|outing|canning|herring|proceed|exceed|succeed|earring)$/;
const rgxRegions = /[aeiouy]+([^aeiouy]{1}.+)/;

/** How many times the regions were computed (for the tests: wink computed them five times a word). */
export const porter2Counts = { regions: 0 };

/** The last character of s, '' for ''. */
const last = (s: string) => (s.length > 0 ? s[s.length - 1]! : '');

function prelude(s: string): string {
  // both rules need a y: most words have none
  let out = s.includes('y') ? s.replace(/^y/, 'Y').replace(/([aeiou])y/, '$1Y') : s;
  // the apostrophe forms: words that hold no apostrophe are left as they are by them
  if (out.includes("'") || out.includes('’')) out = out.replace(/’s$|'s$/, '').replace(/s’$|s'$/, '').replace(/[’']$/, '');
  return out;
}

function isShort(s: string): boolean {
  return /[^aeiouy][aeiouy][^aeiouywxY]$/.test(s) || /^[aeiouy][^aeiouy]{0,1}$/.test(s);
}

function markRegions(s: string): { r1: string; r2: string } {
  porter2Counts.regions++;
  let m1: RegExpExecArray | string | null = rgxRegions.exec(s);
  if (!m1) return { r1: '', r2: '' };
  m1 = m1[1]!.slice(1);
  m1 = /^(gener|commun|arsen)/.test(s) ? s.replace(/^(gener|commun|arsen)(.*)/, '$2') : m1;
  let m2: RegExpExecArray | string | null = rgxRegions.exec(m1);
  if (!m2) return { r1: m1, r2: '' };
  m2 = m2[1]!.slice(1);
  return { r1: m1, r2: m2 };
}

function step1a(s: string): string {
  // every rule below needs a final s (sses, ies, us, ss, s) or d (ied)
  const end = last(s);
  if (end !== 's' && end !== 'd') return s;
  if (rgxSFXsses.test(s)) return s.replace(rgxSFXsses, '$1ss');
  if (rgxSFXiedORies2.test(s)) return s.replace(rgxSFXiedORies2, '$1i');
  if (rgxSFXiedORies1.test(s)) return s.replace(rgxSFXiedORies1, '$1ie');
  if (rgxSFXusORss.test(s)) return s;
  const wordPart = s.replace(rgxSFXs, '$1');
  if (/[aeiuouy](.+)$/.test(wordPart)) return s.replace(rgxSFXs, '$1');
  return s;
}

function step1b(s: string): string {
  // eed, eedly, ed, edly, ing, ingly: a final d, y or g
  const end = last(s);
  if (end !== 'd' && end !== 'y' && end !== 'g') return s;
  if (rgxSFXeedlyOReed.test(s)) return rgxSFXeedlyOReed.test(markRegions(s).r1) ? s.replace(rgxSFXeedlyOReed, '$1ee') : s;
  if (rgxSFXedORedlyORinglyORing.test(s)) {
    const sd = s.replace(rgxSFXedORedlyORinglyORing, '$1');
    return rgxSFXatORblORiz.test(sd) ? sd + 'e' : rgxDouble.test(sd) ? sd.replace(/.$/, '') : isShort(sd) && markRegions(sd).r1 === '' ? sd + 'e' : sd;
  }
  return s;
}

function step1c(s: string): string {
  // wink's rule also takes its mark of a consonant y here ([y3]): a mark stands at the start or
  // after a vowel, never after the non-vowel the rule needs, so only a digit 3 ever matched it
  return last(s) === 'y' ? s.replace(rgxSFXy, '$1i') : s;
}

function step2(s: string): string {
  const found = s.match(rgxSFXstep2);
  const match = found === null ? '$$$$$' : found[1]!;
  // R1 is a part of s: a suffix s does not hold is in no R1 (most words: no region computed)
  if (!s.includes(match)) return s;
  if (markRegions(s).r1.indexOf(match) !== -1) {
    for (const { rgx, replacement } of rgxSFXstep2WithReplacements) {
      const us = s.replace(rgx, replacement);
      if (s !== us) return us;
    }
  }
  return s;
}

function step3(s: string): string {
  const found = s.match(rgxSFXstep3);
  const match = found === null ? '$$$$$' : found[1]!;
  if (!s.includes(match)) return s;
  const rgn = markRegions(s);
  if (rgn.r1.indexOf(match) !== -1) {
    for (const { rgx, replacement } of rgxSFXstep3WithReplacements) {
      const us = s.replace(rgx, replacement);
      if (s !== us) return us;
    }
    if (/ative/.test(rgn.r2)) return s.replace(/ative$/, '');
  }
  return s;
}

function step4(s: string): string {
  const found = s.match(rgxSFXstep4Full);
  if (found === null) return s;
  const match = found[1]!;
  if (markRegions(s).r2.indexOf(match) !== -1) {
    return rgxSFXstep4.test(s) ? s.replace(rgxSFXstep4, '') : rgxSFXstep4ion.test(s) ? s.replace(rgxSFXstep4ion, '$1$2') : s;
  }
  return s;
}

function step5(s: string): string {
  if (/e$/i.test(s)) {
    const rgn = markRegions(s);
    const preceding = s.replace(/e$/, '');
    return /e/.test(rgn.r2) || (/e/.test(rgn.r1) && !isShort(preceding)) ? preceding : s;
  }
  if (/l$/.test(s)) {
    const rgn = markRegions(s);
    return rgn.r2 && /l$/.test(rgn.r2) ? s.replace(/ll$/, 'l') : s;
  }
  return s;
}

/** The Porter2 stem of a word, as wink-porter2-stemmer's stem gives it. */
export function stem(word: string): string {
  let str = word.toLowerCase();
  if (str.length < 3) return str;
  const exception = exceptions1[str];
  if (exception) return exception;
  str = prelude(str);
  str = step1a(str);
  if (!rgxException2.test(str)) {
    str = step1b(str);
    str = step1c(str);
    str = step2(str);
    str = step3(str);
    str = step4(str);
    str = step5(str);
  }
  return str.includes('Y') ? str.replace(/Y/g, 'y') : str;
}
