/**
 * Usage: tokens per UTC day over a range (the last 7, 30 or 90 days, or from/to of
 * your own, at most 366 days), as a chart and a table, with the range's totals and what paid
 * replies earned (USDC, per day and in all).
 */
import { useState } from 'hono/jsx/dom';
import { SelectField } from '../ui/controls';
import { count, plural } from '../ui/format';
import { useLoad } from '../ui/load';
import { ErrorNotice, Status } from '../ui/notice';
import { ScrollRegion } from '../ui/scroll-region';
import { UsageChart } from '../ui/usage-chart';
import { daysOf } from '../ui/usage-days';
import type { PageProps } from './page';
import '../settings.css';

const RANGES: Record<string, number | undefined> = { 'last 7 days': 7, 'last 30 days': 30, 'last 90 days': 90, 'from … to …': undefined };
const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);
const today = () => dayOf(Date.now());
const daysBefore = (n: number) => dayOf(Date.now() - (n - 1) * 86_400_000);

export function UsagePage({ agent }: PageProps) {
  const [range, setRange] = useState('last 7 days');
  const [from, setFrom] = useState(daysBefore(7));
  const [to, setTo] = useState(today());
  const [asked, setAsked] = useState({ from: daysBefore(7), to: today() });
  const report = useLoad(
    (signal) => agent.getUsage({ from: asked.from, to: asked.to, groupBy: 'day' }, { signal }),
    [agent, asked.from, asked.to],
  );

  const pickRange = (value: string) => {
    setRange(value);
    const days = RANGES[value];
    if (days !== undefined) {
      const span = { from: daysBefore(days), to: today() };
      setFrom(span.from);
      setTo(span.to);
      setAsked(span);
    }
  };
  const data = report.data;
  const days = data ? daysOf(data.from, data.to, data.groups) : [];
  const paidOn = new Map((data?.groups ?? []).flatMap((g) => (g.day && g.paidUsd ? [[g.day, g.paidUsd] as const] : [])));
  const used = days.filter((d) => d.input + d.output > 0 || Number(paidOn.get(d.day) ?? 0) > 0);
  return (
    <section class="card" aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <form
        class="row"
        novalidate
        onSubmit={(e: Event) => {
          e.preventDefault();
          setAsked({ from, to });
        }}
      >
        <div class="grow">
          <SelectField label="Range" name="usageRange" value={range} options={Object.keys(RANGES)} onChange={pickRange} />
        </div>
        {RANGES[range] === undefined ? (
          <>
            <div class="field">
              <label for="usage-from">From (UTC)</label>
              <input id="usage-from" type="date" value={from} onInput={(e: Event) => setFrom((e.target as HTMLInputElement).value)} />
            </div>
            <div class="field">
              <label for="usage-to">To (UTC)</label>
              <input id="usage-to" type="date" value={to} onInput={(e: Event) => setTo((e.target as HTMLInputElement).value)} />
            </div>
            <button type="submit">Show</button>
          </>
        ) : null}
      </form>
      {report.loading ? <Status text="Loading the usage…" /> : null}
      <ErrorNotice problem={report.problem} />
      {data ? (
        <>
          <p class="totals">
            {data.from} to {data.to}: <strong>{count(data.totals.inputTokens + data.totals.outputTokens)}</strong> tokens (input{' '}
            {count(data.totals.inputTokens)}, cached {count(data.totals.cachedInputTokens)}, output {count(data.totals.outputTokens)}) in{' '}
            {plural(data.totals.modelCalls, 'model call')}, {plural(data.totals.toolCalls, 'tool call')}.
          </p>
          <p class="totals" id="usage-paid">
            Paid replies earned <strong>{data.totals.paidUsd} USD</strong> in USDC in this range (settled payments, to the owner of the
            moment).
          </p>
          <UsageChart days={days} />
          <ScrollRegion class="table-wrap" label="Tokens per day">
            <table aria-label="Tokens per day">
              <thead>
                <tr>
                  <th>Day (UTC)</th>
                  <th class="num">Input</th>
                  <th class="num">Cached</th>
                  <th class="num">Output</th>
                  <th class="num">Paid (USD)</th>
                </tr>
              </thead>
              <tbody>
                {used.length === 0 ? (
                  <tr>
                    <td colspan={5} class="muted">
                      No usage in this range.
                    </td>
                  </tr>
                ) : (
                  used.map((d) => (
                    <tr>
                      <td>{d.day}</td>
                      <td class="num">{count(d.input)}</td>
                      <td class="num">{count(d.cached)}</td>
                      <td class="num">{count(d.output)}</td>
                      <td class="num">{paidOn.get(d.day) ?? '0'}</td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          </ScrollRegion>
        </>
      ) : null}
    </section>
  );
}
