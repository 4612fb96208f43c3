/**
 * The reviewing screen's pure pieces: the Markdown reader of a queue's instructions (a tree, never
 * HTML: raw markup stays text, unsafe link targets are not links) and the keyboard table (text
 * fields type; Ctrl+Enter submits from anywhere).
 */
import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown, safeHref } from '../src/markdown.js';
import { keyAction } from '../src/pages/review-keys.js';

describe('markdown instructions', () => {
  it('reads headings, lists, code, quotes and inline marks', () => {
    const md = '# Rules\n\nJudge **facts**, not _style_.\n\n- cite `sources`\n- be brief\n\n1. read\n2. decide\n\n> a quote\n\n```\ncode <b>\n```\n\n---';
    expect(parseMarkdown(md)).toEqual([
      { t: 'h', level: 1, c: ['Rules'] },
      { t: 'p', c: ['Judge ', { t: 'strong', c: ['facts'] }, ', not ', { t: 'em', c: ['style'] }, '.'] },
      { t: 'ul', items: [['cite ', { t: 'code', text: 'sources' }], ['be brief']] },
      { t: 'ol', items: [['read'], ['decide']] },
      { t: 'quote', c: [{ t: 'p', c: ['a quote'] }] },
      { t: 'pre', text: 'code <b>' },
      { t: 'hr' },
    ]);
  });

  it('keeps raw HTML as text and makes no link of an unsafe target', () => {
    expect(parseInline('<img src=x onerror=alert(1)>')).toEqual(['<img src=x onerror=alert(1)>']);
    expect(parseInline('[click](javascript:alert(1))')).toEqual(['[click](javascript:alert(1))']);
    expect(parseInline('[guide](https://example.test/g)')).toEqual([{ t: 'link', href: 'https://example.test/g', c: ['guide'] }]);
    expect(safeHref('data:text/html,x')).toBe(false);
    expect(safeHref('//evil.test')).toBe(false);
    expect(safeHref('#/review')).toBe(true);
    expect(parseInline('snake_case_name')).toEqual(['snake_case_name']);
  });
});

describe('review keys', () => {
  const press = (key: string, extra: Partial<{ ctrlKey: boolean; inText: boolean }> = {}) => keyAction({ key, ctrlKey: false, metaKey: false, altKey: false, inText: false, ...extra });
  it('maps the keys of issue 27', () => {
    expect(press('1')).toEqual({ t: 'verdict', index: 0 });
    expect(press('3')).toEqual({ t: 'verdict', index: 2 });
    expect(press('a')).toEqual({ t: 'prefer', which: 'first' });
    expect(press('b')).toEqual({ t: 'prefer', which: 'second' });
    expect(press('t')).toEqual({ t: 'prefer', which: 'tie' });
    expect(press('j')).toEqual({ t: 'move', by: 1 });
    expect(press('k')).toEqual({ t: 'move', by: -1 });
    expect(press('s')).toEqual({ t: 'skip' });
    expect(press('?')).toEqual({ t: 'help' });
    expect(press('Enter', { ctrlKey: true })).toEqual({ t: 'submit' });
    expect(press('x')).toBeNull();
  });
  it('lets a text field type, except Ctrl+Enter and Esc', () => {
    expect(press('1', { inText: true })).toBeNull();
    expect(press('s', { inText: true })).toBeNull();
    expect(press('Enter', { ctrlKey: true, inText: true })).toEqual({ t: 'submit' });
    expect(press('Escape', { inText: true })).toEqual({ t: 'leave' });
  });
});
