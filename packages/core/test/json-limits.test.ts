/**
 * The shape limits of one JSON value and the numbers that would change in parsing (issue 22).
 */
import { describe, expect, it } from 'vitest';
import { checkJsonShape, markUnfaithfulNumbers, UNFAITHFUL_NUMBER_MARK } from '../src/json-limits.js';

const limits = { maxDepth: 3, maxStringLength: 10 };

describe('markUnfaithfulNumbers', () => {
  it('marks numbers beyond, below and past 2^53, and nothing else', () => {
    const marked = JSON.parse(markUnfaithfulNumbers('{"a":1e309,"b":1e-400,"c":12345678901234567890,"d":"1e309","e":[1.5,-0,9007199254740991,0e10,2.5e-300]}'));
    expect(marked).toEqual({
      a: `${UNFAITHFUL_NUMBER_MARK}1e309`,
      b: `${UNFAITHFUL_NUMBER_MARK}1e-400`,
      c: `${UNFAITHFUL_NUMBER_MARK}12345678901234567890`,
      d: '1e309',
      e: [1.5, -0, 9007199254740991, 0, 2.5e-300],
    });
  });

  it('skips escaped quotes inside strings and returns the text itself when nothing changes', () => {
    const text = '{"a":"x\\"1e309","b":[1,2,3]}';
    expect(markUnfaithfulNumbers(text)).toBe(text);
    expect(JSON.parse(markUnfaithfulNumbers('[-1E+400]'))).toEqual([`${UNFAITHFUL_NUMBER_MARK}-1E+400`]);
  });

  it('is linear: a 4 MB body of numbers is marked in well under a second', () => {
    const text = `[${Array.from({ length: 400_000 }, (_, i) => (i % 1000 === 0 ? '1e999' : String(i * 1.5))).join(',')}]`;
    const started = performance.now();
    const marked = markUnfaithfulNumbers(text);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect((JSON.parse(marked) as unknown[]).filter((v) => typeof v === 'string')).toHaveLength(400);
  });
});

describe('checkJsonShape', () => {
  it('names the field that nests too deep, holds a long string, a marked or a non-finite number', () => {
    expect(checkJsonShape({ metadata: { a: { b: { c: 1 } } } }, limits)).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_TOO_DEEP', field: 'metadata.a.b' });
    expect(checkJsonShape({ metadata: { note: 'x'.repeat(11) } }, limits)).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_INVALID_FIELD', field: 'metadata.note' });
    expect(checkJsonShape({ m: [1, `${UNFAITHFUL_NUMBER_MARK}1e309`] }, limits)).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_UNFAITHFUL_NUMBER', field: 'm.1' });
    expect(checkJsonShape({ m: Infinity }, limits)).toMatchObject({ code: 'FEEDLOOP_ERR_VALIDATION_UNFAITHFUL_NUMBER', field: 'm' });
    expect(checkJsonShape({ metadata: { a: { b: 1 } } }, limits)).toBeUndefined();
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = { a: v };
    expect(checkJsonShape(v, limits)?.code).toBe('FEEDLOOP_ERR_VALIDATION_TOO_DEEP');
  });
});
