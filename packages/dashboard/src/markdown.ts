/**
 * A small Markdown reader for a review queue's instructions: headings, paragraphs, lists, quotes,
 * code, rules, and inline code, bold, italics and links. It returns a tree, never HTML: the page
 * renders the tree as elements and text nodes (markdown-view.tsx), so whatever a queue's author
 * writes (`<script>`, `<img onerror>`, raw HTML of any kind) is shown as text and cannot run. A
 * link keeps its target only when it is http(s), mailto or within this page; anything else
 * (`javascript:`, `data:`) stays text. A library (marked + DOMPurify) would cost ~40 kB of the
 * bundle and a sanitizer to trust; instructions need only this subset.
 */

/** An inline piece: text, code, emphasis or a link. */
export type Inline =
  | string
  | { t: 'code'; text: string }
  | { t: 'strong'; c: Inline[] }
  | { t: 'em'; c: Inline[] }
  | { t: 'link'; href: string; c: Inline[] };

/** A block: heading, paragraph, list, code block, quote or rule. */
export type Block =
  | { t: 'h'; level: 1 | 2 | 3 | 4 | 5 | 6; c: Inline[] }
  | { t: 'p'; c: Inline[] }
  | { t: 'ul' | 'ol'; items: Inline[][] }
  | { t: 'pre'; text: string }
  | { t: 'quote'; c: Block[] }
  | { t: 'hr' };

/** Whether a link target may be followed: web, mail, or a place within this page or server. */
export function safeHref(href: string): boolean {
  return /^(https?:|mailto:)/i.test(href) || (/^[/#]/.test(href) && !href.startsWith('//'));
}

/**
 * Reads inline Markdown: `code`, **bold**, *italic* or _italic_, [text](target).
 *
 * @example
 * parseInline('see **the [guide](https://x.test)**') // ['see ', { t: 'strong', c: [{ t: 'link', href: 'https://x.test', c: ['the guide'] }] }]
 */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push(plain);
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === '\\' && i + 1 < text.length && /[\\`*_[\]()#>-]/.test(text[i + 1] as string)) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (ch === '`') {
      const end = text.indexOf('`', i + 1);
      if (end > i + 1) {
        flush();
        out.push({ t: 'code', text: text.slice(i + 1, end) });
        i = end + 1;
        continue;
      }
    }
    if (ch === '*' && text[i + 1] === '*') {
      const end = text.indexOf('**', i + 2);
      if (end > i + 2) {
        flush();
        out.push({ t: 'strong', c: parseInline(text.slice(i + 2, end)) });
        i = end + 2;
        continue;
      }
    }
    // `_` opens emphasis only at a word's start, so snake_case names stay as they are.
    if ((ch === '*' || (ch === '_' && (i === 0 || /\s/.test(text[i - 1] as string)))) && text[i + 1] !== ' ') {
      const end = text.indexOf(ch, i + 1);
      if (end > i + 1 && text[end - 1] !== ' ') {
        flush();
        out.push({ t: 'em', c: parseInline(text.slice(i + 1, end)) });
        i = end + 1;
        continue;
      }
    }
    if (ch === '[') {
      const close = text.indexOf('](', i + 1);
      const end = close > i ? text.indexOf(')', close + 2) : -1;
      if (close > i && end > close) {
        const href = text.slice(close + 2, end).trim();
        // An unsafe target (javascript:, data:…) is no link: the whole of it stays text, as written.
        if (safeHref(href)) {
          flush();
          out.push({ t: 'link', href, c: parseInline(text.slice(i + 1, close)) });
          i = end + 1;
          continue;
        }
      }
    }
    plain += ch;
    i += 1;
  }
  flush();
  return out;
}

const LIST_ITEM = /^\s{0,3}([-*+]|\d{1,9}[.)])\s+(.*)$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const FENCE = /^\s{0,3}(```|~~~)/;

/**
 * Reads Markdown into blocks.
 *
 * @example
 * parseMarkdown('# Rules\n\n- be kind\n- be brief')
 * // [{ t: 'h', level: 1, c: ['Rules'] }, { t: 'ul', items: [['be kind'], ['be brief']] }]
 */
export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (line.trim() === '') {
      i += 1;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const body: string[] = [];
      i += 1;
      while (i < lines.length && !(lines[i] as string).trimStart().startsWith(fence[1] as string)) body.push(lines[i++] as string);
      i += 1;
      blocks.push({ t: 'pre', text: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ t: 'h', level: (heading[1] as string).length as 1 | 2 | 3 | 4 | 5 | 6, c: parseInline(heading[2] as string) });
      i += 1;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push({ t: 'hr' });
      i += 1;
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && /^\s{0,3}>/.test(lines[i] as string)) quoted.push((lines[i++] as string).replace(/^\s{0,3}>\s?/, ''));
      blocks.push({ t: 'quote', c: parseMarkdown(quoted.join('\n')) });
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = /\d/.test(item[1] as string);
      const items: string[] = [];
      while (i < lines.length) {
        const next = LIST_ITEM.exec(lines[i] as string);
        if (next && /\d/.test(next[1] as string) === ordered) items.push(next[2] as string);
        else if (items.length > 0 && /^\s{2,}\S/.test(lines[i] as string)) items[items.length - 1] += ` ${(lines[i] as string).trim()}`;
        else break;
        i += 1;
      }
      blocks.push({ t: ordered ? 'ol' : 'ul', items: items.map(parseInline) });
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && (lines[i] as string).trim() !== '' && !FENCE.test(lines[i] as string) && !HEADING.test(lines[i] as string) && !LIST_ITEM.test(lines[i] as string) && !/^\s{0,3}>/.test(lines[i] as string)) {
      para.push((lines[i++] as string).trim());
    }
    blocks.push({ t: 'p', c: parseInline(para.join(' ')) });
  }
  return blocks;
}
