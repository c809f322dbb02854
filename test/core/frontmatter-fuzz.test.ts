import { runFuzz } from '../helpers/frontmatter-fuzz';

/**
 * The frontmatter reader and writer on random notes (see test/helpers/frontmatter-fuzz.ts for
 * what must hold). CI runs a fixed 2,000 cases; `npm run fuzz -- --cases N --seed S` runs more.
 */
describe('frontmatter fuzz', () => {
  it('every random note is either refused with a reason or written with only the written fields changed', () => {
    const report = runFuzz('ci', 2000);
    expect(report.failures).toEqual([]);
    expect(report.tried).toBe(2000);
    // the generator reaches both outcomes in proportions that make the run mean something
    expect(report.written).toBeGreaterThan(1200);
    expect(report.refused).toBeGreaterThan(200);
    expect(report.written + report.refused).toBe(2000);
  });
});
