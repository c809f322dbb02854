import { findDates } from '../../../src/core/recall/dates';
import { formatDay, MS_PER_DAY } from '../../../src/core/time';

/** Each mention as "text: first day..last day" (the last day inclusive). */
function spans(text: string, anchor: string): string[] {
  return findDates(text, Date.parse(anchor)).mentions.map((m) => `${text.slice(m.from, m.to)}: ${formatDay(m.start)}..${formatDay(m.end - MS_PER_DAY)}`);
}

// 2023-06-14 is a Wednesday.
const WED = '2023-06-14T15:00:00Z';

describe('date expressions (absolute)', () => {
  it('reads days written either way, with or without a year', () => {
    expect(spans('What movie did Joanna watch on 1 May, 2022?', WED)).toEqual(['1 May, 2022: 2022-05-01..2022-05-01']);
    expect(spans('on October 13, 2023 and December 1,2023', WED)).toEqual(['October 13, 2023: 2023-10-13..2023-10-13', 'December 1,2023: 2023-12-01..2023-12-01']);
    expect(spans('the 8th of December 2023, 2022-05-03', WED)).toEqual(['8th of December 2023: 2023-12-08..2023-12-08', '2022-05-03: 2022-05-03..2022-05-03']);
    // no year: the latest one that has begun by the anchor
    expect(spans('on May 3 and on 20 June', WED)).toEqual(['May 3: 2023-05-03..2023-05-03', '20 June: 2022-06-20..2022-06-20']);
  });

  it('reads months, years and seasons', () => {
    expect(spans('in January 2022, in May of 2022, during 2021', WED)).toEqual([
      'January 2022: 2022-01-01..2022-01-31',
      'May of 2022: 2022-05-01..2022-05-31',
      '2021: 2021-01-01..2021-12-31',
    ]);
    expect(spans('in July and in may', WED)).toEqual(['July: 2022-07-01..2022-07-31', 'may: 2023-05-01..2023-05-31']);
    expect(spans('summer 2021, last summer, this summer, next winter', WED)).toEqual([
      'summer 2021: 2021-06-01..2021-08-31',
      'last summer: 2022-06-01..2022-08-31',
      'this summer: 2023-06-01..2023-08-31',
      'next winter: 2023-12-01..2024-02-29',
    ]);
  });

  it('does not read "may", "march" or "fall" as dates when they are verbs', () => {
    expect(spans('You may march on, I may fall, August company', WED)).toEqual([]);
    expect(spans('In the fall we moved', WED)).toEqual(['fall: 2022-09-01..2022-11-30']);
  });

  it('reads weeks and parts of months', () => {
    // only the first or the second half is one: "the other half of" names the month alone
    expect(spans('the other half of September 2022', WED)).toEqual(['September 2022: 2022-09-01..2022-09-30']);
    expect(spans('the second half of September 2022', WED)).toEqual(['the second half of September 2022: 2022-09-16..2022-09-30']);
    expect(spans('the second week of November, the beginning of November 2022, the first half of September 2022', WED)).toEqual([
      'the second week of November: 2022-11-08..2022-11-14',
      'the beginning of November 2022: 2022-11-01..2022-11-10',
      'the first half of September 2022: 2022-09-01..2022-09-15',
    ]);
    expect(spans('early May, mid May, late February 2024, the last week of April', WED)).toEqual([
      'early May: 2023-05-01..2023-05-10',
      'mid May: 2023-05-11..2023-05-20',
      'late February 2024: 2024-02-21..2024-02-29',
      'the last week of April: 2023-04-24..2023-04-30',
    ]);
  });

  it('reads ranges', () => {
    expect(spans('Where was John between August 11 and August 15 2023?', WED)).toEqual(['between August 11 and August 15 2023: 2023-08-11..2023-08-15']);
    expect(spans('between 3 and 5 May 2022', WED)).toEqual(['between 3 and 5 May 2022: 2022-05-03..2022-05-05']);
    expect(spans('between May 3 and 5, 2022', WED)).toEqual(['between May 3 and 5, 2022: 2022-05-03..2022-05-05']);
  });
});

describe('date expressions (relative to when the text was written)', () => {
  it('reads days around the anchor', () => {
    expect(spans('yesterday, today, tonight, tomorrow, last night, this morning', WED)).toEqual([
      'yesterday: 2023-06-13..2023-06-13',
      'today: 2023-06-14..2023-06-14',
      'tonight: 2023-06-14..2023-06-14',
      'tomorrow: 2023-06-15..2023-06-15',
      'last night: 2023-06-13..2023-06-13',
      'this morning: 2023-06-14..2023-06-14',
    ]);
  });

  it('reads calendar weeks, weekends, months and years', () => {
    expect(spans('last week, this week, next week, last weekend, this weekend, next weekend', WED)).toEqual([
      'last week: 2023-06-05..2023-06-11',
      'this week: 2023-06-12..2023-06-18',
      'next week: 2023-06-19..2023-06-25',
      'last weekend: 2023-06-10..2023-06-11',
      'this weekend: 2023-06-17..2023-06-18',
      'next weekend: 2023-06-24..2023-06-25',
    ]);
    expect(spans('last month, next month, last year, this year', WED)).toEqual([
      'last month: 2023-05-01..2023-05-31',
      'next month: 2023-07-01..2023-07-31',
      'last year: 2022-01-01..2022-12-31',
      'this year: 2023-01-01..2023-12-31',
    ]);
  });

  it('reads weekdays: last Friday is the latest one before today, a bare weekday the latest one up to today', () => {
    expect(spans('last Friday, last Wednesday, this Friday, next Monday, on Tuesday, Wednesday, last Tues', WED)).toEqual([
      'last Friday: 2023-06-09..2023-06-09',
      'last Wednesday: 2023-06-07..2023-06-07',
      'this Friday: 2023-06-16..2023-06-16',
      'next Monday: 2023-06-19..2023-06-19',
      'Tuesday: 2023-06-13..2023-06-13',
      'Wednesday: 2023-06-14..2023-06-14',
      'last Tues: 2023-06-13..2023-06-13',
    ]);
  });

  it('reads counts of units ago', () => {
    expect(spans('three days ago, 2 weeks ago, a few months ago, a couple of years ago, two weekends ago', WED)).toEqual([
      'three days ago: 2023-06-11..2023-06-11',
      '2 weeks ago: 2023-05-29..2023-06-04',
      'a few months ago: 2023-03-01..2023-03-31',
      'a couple of years ago: 2021-01-01..2021-12-31',
      'two weekends ago: 2023-06-03..2023-06-04',
    ]);
  });

  it('reads spans before or after a date', () => {
    expect(spans('the week before 9 June 2023', WED)).toEqual(['the week before 9 June 2023: 2023-06-02..2023-06-08']);
    expect(spans('The Sunday before October 25, 2022', WED)).toEqual(['The Sunday before October 25, 2022: 2022-10-23..2022-10-23']);
    expect(spans('two weekends before 17 July 2023', WED)).toEqual(['two weekends before 17 July 2023: 2023-07-08..2023-07-09']);
    expect(spans('the day after 1 May 2022', WED)).toEqual(['the day after 1 May 2022: 2022-05-02..2022-05-02']);
  });
});

describe('durations and things that are not dates', () => {
  it('reports durations apart, without a span', () => {
    const found = findDates("I've known these friends for 4 years, and three weeks in", Date.parse(WED));
    expect(found.mentions).toEqual([]);
    expect(found.durations.map((d) => "I've known these friends for 4 years, and three weeks in".slice(d.from, d.to))).toEqual(['4 years', 'three weeks']);
  });

  it('finds nothing in text without dates', () => {
    expect(spans('I painted a sunset with my kids, a bowl and 3 cups', WED)).toEqual([]);
  });
});
