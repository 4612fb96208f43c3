/**
 * The reviewing screen's keyboard (issue 27: keyboard-first, hundreds of items a day): which key
 * does what, as one table the screen acts on and the `?` list shows, so the two never disagree.
 */

/** What a key press asks for. */
export type KeyAction =
  | { t: 'verdict'; index: 0 | 1 | 2 }
  | { t: 'prefer'; which: 'first' | 'second' | 'tie' }
  | { t: 'move'; by: 1 | -1 }
  | { t: 'skip' }
  | { t: 'submit' }
  | { t: 'help' }
  | { t: 'leave' };

/** The shortcuts as the `?` list shows them. */
export const SHORTCUTS: ReadonlyArray<readonly [string, string]> = [
  ['1 / 2 / 3', 'verdict: approved / changes requested / rejected'],
  ['a / b / t', 'pairwise: prefer answer A / answer B / a tie'],
  ['j / k', 'move to the next / previous field or answer'],
  ['s', 'skip this item (it goes to another reviewer)'],
  ['Ctrl+Enter', 'submit the review and open the next item (also inside a text field)'],
  ['Esc', 'leave a text field (then the keys above work again); close this list'],
  ['?', 'show or hide this list'],
];

/** A key press as the screen sees it. */
export interface KeyPress { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean; inText: boolean }

/**
 * The action of a key press; null when the key is not a shortcut here. Inside a text field only
 * Ctrl+Enter (submit) and Esc (leave the field) act: every other key types.
 *
 * @example
 * keyAction({ key: '2', ctrlKey: false, metaKey: false, altKey: false, inText: false }) // { t: 'verdict', index: 1 }
 */
export function keyAction(e: KeyPress): KeyAction | null {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) return { t: 'submit' };
  if (e.key === 'Escape') return { t: 'leave' };
  if (e.inText || e.ctrlKey || e.metaKey || e.altKey) return null;
  switch (e.key) {
    case '1': return { t: 'verdict', index: 0 };
    case '2': return { t: 'verdict', index: 1 };
    case '3': return { t: 'verdict', index: 2 };
    case 'a': return { t: 'prefer', which: 'first' };
    case 'b': return { t: 'prefer', which: 'second' };
    case 't': return { t: 'prefer', which: 'tie' };
    case 'j': return { t: 'move', by: 1 };
    case 'k': return { t: 'move', by: -1 };
    case 's': return { t: 'skip' };
    case '?': return { t: 'help' };
    default: return null;
  }
}
