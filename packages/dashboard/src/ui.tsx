/**
 * Shared pieces of the dashboard's pages: the data-loading hook (with the "not available on this
 * server" state), cards, figures and two hand-written SVG charts (a line and stacked bars), which
 * cost a few hundred bytes where a chart library would cost tens of kilobytes.
 */
// The module alone (no zod, no schemas): the whole of @feedloop/core would more than double the bundle.
import { DAY_MS } from '@feedloop/core/time';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { NotAvailable } from './api.js';

/** A load's state: loading, its data, an error, or a route this server does not have. */
export type Loaded<T> = { state: 'loading' } | { state: 'ok'; data: T } | { state: 'error'; message: string } | { state: 'missing' };

/**
 * Runs `load` when `deps` change and tracks its state.
 *
 * @example
 * const stats = useLoad(() => api<Stats>('GET', '/v1/stats'), []);
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): [Loaded<T>, () => void] {
  const [value, setValue] = useState<Loaded<T>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (data) => live && setValue({ state: 'ok', data }),
      (err: unknown) => live && setValue(err instanceof NotAvailable ? { state: 'missing' } : { state: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  return [value, () => setTick((t) => t + 1)];
}

/**
 * A form's draft of `value` that the user edits: the user's edit while `key` (e.g. the URL's
 * filters) stays what it was when they made it, else `value`. Worked out as the form draws, with
 * no effect: an effect that set the draft back ran late or not at all, and the form kept a
 * choice the URL no longer said (a back step taken right after applying a filter, seen in CI), or
 * lost one made before it ran (a queue rule's rating picked as its form appeared). `drop` forgets
 * the edit, e.g. when the form is applied and the URL becomes the draft's source.
 *
 * @example
 * const [draft, setDraft, drop] = useDraft(filters, JSON.stringify(filters));
 */
export function useDraft<T>(value: T, key: string): [T, (next: T) => void, () => void] {
  const edit = useRef<{ key: string; draft: T } | null>(null);
  const [, redraw] = useState(0);
  if (edit.current !== null && edit.current.key !== key) edit.current = null;
  const draft = edit.current === null ? value : edit.current.draft;
  const setDraft = (next: T): void => {
    edit.current = { key, draft: next };
    redraw((n) => n + 1);
  };
  const drop = (): void => {
    edit.current = null;
  };
  return [draft, setDraft, drop];
}

/** Renders a load: a placeholder of fixed height while loading (no layout shift), its error, or its data. */
export function Show<T>({ value, height = 120, children }: { value: Loaded<T>; height?: number; children: (data: T) => ComponentChildren }) {
  if (value.state === 'loading') return <div class="placeholder" style={{ minHeight: `${height}px` }} aria-busy="true" />;
  if (value.state === 'missing') return <p class="note" role="status">Not available on this server: this feedloop version does not have this API yet.</p>;
  if (value.state === 'error') return <p class="error" role="alert">{value.message}</p>;
  return <>{children(value.data)}</>;
}

/** A titled card. */
export function Card({ title, children, wide }: { title: string; children: ComponentChildren; wide?: boolean }) {
  return (
    <section class={wide ? 'card wide' : 'card'} aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** One figure with a label and an optional line under it; `name` marks its value (`data-figure`) for tests. */
export function Figure({ label, value, sub, name }: { label: string; value: string; sub?: string; name?: string }) {
  return (
    <div class="figure">
      <div class="label">{label}</div>
      <div class="value" data-figure={name}>{value}</div>
      {sub ? <div class="sub">{sub}</div> : null}
    </div>
  );
}

/** A percentage 0–100 (or null) as text. */
export const pct = (x: number | null | undefined, digits = 1): string => (x === null || x === undefined ? '–' : `${x.toFixed(digits)} %`);
/** A number with thousands separators, rounded to at most 2 decimals (no float noise on a page). */
export const num = (x: number | null | undefined): string => (x === null || x === undefined ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: 2 }));

const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * A duration in ms as a reader says it: `850 ms`, `12.4 s`, `3.7 min`, `5.2 h`, `2.1 d`.
 *
 * @example
 * duration(219626) // '3.7 min'
 */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  const abs = Math.abs(ms);
  if (abs < SECOND_MS) return `${Math.round(ms)} ms`;
  if (abs < MINUTE_MS) return `${(ms / SECOND_MS).toFixed(1)} s`;
  if (abs < HOUR_MS) return `${(ms / MINUTE_MS).toFixed(1)} min`;
  if (abs < DAY_MS) return `${(ms / HOUR_MS).toFixed(1)} h`;
  return `${(ms / DAY_MS).toFixed(1)} d`;
}

/**
 * The drawn width of a chart in CSS pixels, so its text stays readable at 1280 px and on a phone
 * (a fixed viewBox would scale the labels with the screen). The height is fixed: no layout shift.
 */
function useWidth(): [preact.RefObject<SVGSVGElement>, number] {
  const ref = useRef<SVGSVGElement>(null);
  const [width, setWidth] = useState(600);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => entry && setWidth(Math.max(200, Math.round(entry.contentRect.width))));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/** Lines over the same x points (values may be null: gaps). Fixed aspect ratio: no layout shift. */
export function LineChart({ series, labels, height = 200, max = 100 }: { series: Array<{ name: string; values: Array<number | null>; color: string }>; labels: string[]; height?: number; max?: number }) {
  const [ref, w] = useWidth();
  const n = Math.max(1, labels.length - 1);
  const y = (v: number): number => height - 20 - (v / max) * (height - 30);
  return (
    <svg ref={ref} viewBox={`0 0 ${w} ${height}`} style={{ height: `${height}px`, overflow: 'visible' }} class="chart" role="img" aria-label={series.map((s) => s.name).join(', ')}>
      {[0, 25, 50, 75, 100].map((g) => (
        <g key={g}>
          <line x1="30" x2={w} y1={y((g / 100) * max)} y2={y((g / 100) * max)} class="grid" />
          <text x="0" y={y((g / 100) * max) + 4} class="axis">{Math.round((g / 100) * max)}</text>
        </g>
      ))}
      {series.map((s) => {
        let d = '';
        // A value with no neighbour draws no line: it gets a dot (one rated day showed an empty chart).
        const dots: Array<[number, number]> = [];
        s.values.forEach((v, i) => {
          if (v === null) return;
          const x = 30 + (i / n) * (w - 30);
          d += `${d && s.values[i - 1] !== null ? 'L' : 'M'}${x.toFixed(1)},${y(v).toFixed(1)}`;
          if ((s.values[i - 1] ?? null) === null && (s.values[i + 1] ?? null) === null) dots.push([x, y(v)]);
        });
        return (
          <g key={s.name}>
            <path d={d} fill="none" stroke={s.color} stroke-width="2" />
            {dots.map(([cx, cy]) => (
              <circle key={cx} cx={cx.toFixed(1)} cy={cy.toFixed(1)} r="4" fill={s.color} />
            ))}
          </g>
        );
      })}
      <text x="30" y={height - 4} class="axis">{labels[0]}</text>
      <text x={w} y={height - 4} class="axis" text-anchor="end">{labels[labels.length - 1]}</text>
    </svg>
  );
}

/** Stacked bars of positive (up) and negative per x point. */
export function VolumeChart({ days, height = 180 }: { days: Array<{ date: string; positive: number; negative: number }>; height?: number }) {
  const [ref, w] = useWidth();
  const max = Math.max(1, ...days.map((d) => d.positive + d.negative));
  const bw = (w - 30) / Math.max(1, days.length);
  const h = (v: number): number => (v / max) * (height - 30);
  return (
    <svg ref={ref} viewBox={`0 0 ${w} ${height}`} style={{ height: `${height}px` }} class="chart" role="img" aria-label="Rated feedback per day, positive and negative">
      <text x="0" y="12" class="axis">{max}</text>
      {days.map((d, i) => (
        <g key={d.date}>
          <title>{`${d.date}: ${d.positive} positive, ${d.negative} negative`}</title>
          <rect x={30 + i * bw} width={Math.max(1, bw - 1)} y={height - 20 - h(d.positive)} height={h(d.positive)} class="pos" />
          <rect x={30 + i * bw} width={Math.max(1, bw - 1)} y={height - 20 - h(d.positive) - h(d.negative)} height={h(d.negative)} class="neg" />
        </g>
      ))}
      <text x="30" y={height - 4} class="axis">{days[0]?.date}</text>
      <text x={w} y={height - 4} class="axis" text-anchor="end">{days[days.length - 1]?.date}</text>
    </svg>
  );
}
