/**
 * Renders markdown.ts's tree as elements and text nodes: no `innerHTML` anywhere, so a queue's
 * instructions cannot inject markup or script, whatever their author wrote.
 */
import type { ComponentChildren } from 'preact';
import { parseMarkdown, type Block, type Inline } from './markdown.js';

function inline(parts: Inline[]): ComponentChildren {
  return parts.map((p, i) => {
    if (typeof p === 'string') return p;
    if (p.t === 'code') return <code key={i}>{p.text}</code>;
    if (p.t === 'strong') return <strong key={i}>{inline(p.c)}</strong>;
    if (p.t === 'em') return <em key={i}>{inline(p.c)}</em>;
    return <a key={i} href={p.href} target="_blank" rel="noopener noreferrer">{inline(p.c)}</a>;
  });
}

function block(b: Block, i: number): ComponentChildren {
  switch (b.t) {
    case 'h': {
      // Instructions sit inside a card: their headings start below the card's own (h3 and down).
      const Tag = `h${Math.min(6, b.level + 2)}` as 'h3';
      return <Tag key={i}>{inline(b.c)}</Tag>;
    }
    case 'p': return <p key={i}>{inline(b.c)}</p>;
    case 'ul': return <ul key={i}>{b.items.map((x, j) => <li key={j}>{inline(x)}</li>)}</ul>;
    case 'ol': return <ol key={i}>{b.items.map((x, j) => <li key={j}>{inline(x)}</li>)}</ol>;
    case 'pre': return <pre key={i}>{b.text}</pre>;
    case 'quote': return <blockquote key={i}>{b.c.map(block)}</blockquote>;
    case 'hr': return <hr key={i} />;
  }
}

/** Markdown text as safe elements. */
export function Markdown({ text }: { text: string }) {
  return <div class="markdown">{parseMarkdown(text).map(block)}</div>;
}
