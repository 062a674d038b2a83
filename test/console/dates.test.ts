// @engine-neutral: no database is opened here
/**
 * Dates typed in the console's language (web/src/dates.ts): the pattern follows the language's
 * order of day, month and year; impossible days and times are refused rather than rolled over;
 * the value is read in the local time zone (the test process runs in UTC unless TZ says other).
 */
import { describe, expect, it } from 'vitest';
import { dateOrder, datePattern, parseDateInput } from '../../web/src/dates.js';

const local = (y: number, m: number, d: number, h = 0, min = 0) => new Date(y, m - 1, d, h, min);

describe('typed dates', () => {
  it('shows the pattern of each language', () => {
    expect(dateOrder('pt-BR')).toEqual(['day', 'month', 'year']);
    expect(dateOrder('en')).toEqual(['month', 'day', 'year']);
    expect(datePattern('pt-BR', true)).toBe('dd/mm/aaaa hh:mm');
    expect(datePattern('en', false)).toBe('mm/dd/yyyy');
  });

  it('reads the day in the language’s order, with an optional 24-hour time', () => {
    expect(parseDateInput('pt-BR', '05/02/2027', { withTime: false })).toEqual({ ok: true, date: local(2027, 2, 5) });
    expect(parseDateInput('en', '02/05/2027', { withTime: false })).toEqual({ ok: true, date: local(2027, 2, 5) });
    expect(parseDateInput('pt-BR', ' 5/2/2027 7:05 ', { withTime: true })).toEqual({ ok: true, date: local(2027, 2, 5, 7, 5) });
    expect(parseDateInput('pt-BR', '05/02/2027', { withTime: false, endOfDay: true })).toEqual({ ok: true, date: new Date(2027, 1, 5, 23, 59, 59, 999) });
    expect(parseDateInput('pt-BR', '29/02/2028', { withTime: false }).ok).toBe(true);
  });

  it('refuses what is not in the pattern and days or times that do not exist', () => {
    for (const text of ['2027-02-05', '05/02/27', 'amanhã', '05/02/2027 10h', '']) expect(parseDateInput('pt-BR', text, { withTime: true }), text).toEqual({ ok: false, reason: 'format' });
    expect(parseDateInput('pt-BR', '05/02/2027 10:00', { withTime: false })).toEqual({ ok: false, reason: 'format' });
    for (const text of ['29/02/2027', '31/04/2027', '00/01/2027', '01/13/2027', '01/01/2027 24:00', '01/01/2027 10:60']) {
      expect(parseDateInput('pt-BR', text, { withTime: true }), text).toEqual({ ok: false, reason: 'invalid' });
    }
    // In English the first number is the month.
    expect(parseDateInput('en', '13/05/2027', { withTime: false })).toEqual({ ok: false, reason: 'invalid' });
  });

});
