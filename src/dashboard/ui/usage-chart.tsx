/**
 * Tokens per UTC day as stacked bars, drawn here in inline SVG (no chart library): cached input,
 * the rest of the input, output. Hover or focus a day (Tab, then ← →) for its numbers; the same
 * numbers are in the table below the chart.
 */
import { useState } from 'hono/jsx/dom';
import { count } from './format';
import type { DayUsage } from './usage-days';
import './usage-chart.css';

const W = 600;
const H = 200;

const said = (d: DayUsage) =>
  `${d.day}: ${count(d.input + d.output)} tokens, input ${count(d.input)} (cached ${count(d.cached)}), output ${count(d.output)}`;

export function UsageChart({ days }: { days: DayUsage[] }) {
  const [picked, setPicked] = useState<number | undefined>(undefined);
  const max = Math.max(1, ...days.map((d) => d.input + d.output));
  const slot = W / Math.max(1, days.length);
  const bar = Math.max(1, slot * 0.75);
  const y = (tokens: number) => (tokens / max) * H;
  const move = (e: KeyboardEvent, i: number) => {
    const to = e.key === 'ArrowRight' ? i + 1 : e.key === 'ArrowLeft' ? i - 1 : undefined;
    if (to === undefined || to < 0 || to >= days.length) return;
    e.preventDefault();
    const next = (e.currentTarget as SVGElement).parentNode?.children[to] as SVGElement | undefined;
    next?.focus();
  };
  const shown = picked === undefined ? undefined : days[picked];
  return (
    <figure class="chart">
      <div class="chart-axis muted">
        <span>{count(max)} tokens</span>
        <span class="legend">
          <span class="swatch cached" /> cached input <span class="swatch input" /> input <span class="swatch output" /> output
        </span>
      </div>
      <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" class="chart-svg">
        <title>Tokens per day</title>
        <g>
          {days.map((d, i) => {
            const x = i * slot + (slot - bar) / 2;
            const parts = [
              { cls: 'cached', tokens: d.cached },
              { cls: 'input', tokens: d.input - d.cached },
              { cls: 'output', tokens: d.output },
            ];
            let top = H;
            return (
              // biome-ignore lint/a11y/useSemanticElements: a day of an SVG chart cannot be an HTML <button>; it takes focus and keys like one
              <g
                tabindex={0}
                role="button"
                aria-label={said(d)}
                class={picked === i ? 'day picked' : 'day'}
                onMouseEnter={() => setPicked(i)}
                onFocus={() => setPicked(i)}
                onClick={() => setPicked(i)}
                onKeyDown={(e: KeyboardEvent) => move(e, i)}
              >
                <title>{said(d)}</title>
                <rect class="hit" x={i * slot} y={0} width={slot} height={H} />
                <rect class="tick" x={x} y={H - 2} width={bar} height={2} />
                {parts.map((p) => {
                  const h = y(Math.max(0, p.tokens));
                  top -= h;
                  return h > 0 ? <rect class={p.cls} x={x} y={top} width={bar} height={h} /> : null;
                })}
              </g>
            );
          })}
        </g>
      </svg>
      <div class="chart-axis muted">
        <span>{days[0]?.day}</span>
        <span>{days[days.length - 1]?.day}</span>
      </div>
      <figcaption class="chart-picked" aria-live="polite">
        {shown ? said(shown) : 'Hover or focus a day for its numbers.'}
      </figcaption>
    </figure>
  );
}
