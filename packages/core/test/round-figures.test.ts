import { describe, expect, it } from 'vitest';
import { roundFigure, roundingReplacer } from '../src/round-figures.js';

describe('roundFigure', () => {
  it('rounds float noise to 6 significant digits and leaves integers alone', () => {
    expect(roundFigure(2.999999395903041)).toBe(3);
    expect(roundFigure(-0.8162499929241227)).toBe(-0.81625);
    expect(roundFigure(0.000012345678)).toBe(0.0000123457);
    expect(roundFigure(219626)).toBe(219626);
    expect(roundFigure(1764212345678)).toBe(1764212345678);
    expect(roundFigure(-0.0000000001 * 0)).toBe(0);
    expect(Object.is(roundFigure(-1e-30 * 1e-300), 0)).toBe(true);
    expect(roundFigure(Number.NaN)).toBeNaN();
  });

  it('rounds every number of an answer through the replacer', () => {
    expect(JSON.stringify({ w: 0.999999709049374, xs: [1.23456789, 2], s: '0.123456789' }, roundingReplacer)).toBe('{"w":1,"xs":[1.23457,2],"s":"0.123456789"}');
  });
});
