/**
 * The HTML report: one self-contained page rendered on the server (preact + htm to a string), the
 * charts' data embedded as JSON, and the browser script (uPlot bundled at build time by esbuild)
 * and styles inlined, so the file opens offline with nothing to fetch.
 */
import { readFileSync } from 'node:fs';
import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { CostRow } from '../cost.js';
import { COST_COLUMNS } from '../cost.js';
import type { CompareRow } from '../compare-rows.js';
import type { ChartSpec, PageData } from './model.js';
import { numbersSummary, numbersTable, PAGE_DATA_ID } from './model.js';
import type { RunSection, Table } from './sections.js';
import { PAGE_CSS } from './style.js';

export interface ReportInput {
  title: string;
  sections: RunSection[];
  /** Rows of the comparison across runs (shown with two rows or more). */
  comparison:
    | {
        rows: CompareRow[];
        chart: ChartSpec;
        warnings: string[];
        /** The line saying on which figures the rows differ only by noise. */
        noise?: string | undefined;
        /** Each row against the first: the difference of each headline figure and its verdict. */
        differences?: Table | undefined;
      }
    | undefined;
  cost: { rows: CostRow[]; notes: string[] } | undefined;
  /** What the runs' workloads say their figures are not (each distinct one once). */
  disclaimers: string[];
  generatedAt: string;
}

export interface RenderOptions {
  /** A live dashboard: the page listens to Server-Sent Events at this path. */
  live?: { eventsPath: string } | undefined;
}

/** The bundled browser script and uPlot's stylesheet, built into dist/ beside this module. */
function asset(name: string): string {
  try {
    return readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');
  } catch {
    throw new Error(`${name} is missing beside the report module; run \`npm run build\``);
  }
}

export function renderReportHtml(input: ReportInput, options: RenderOptions = {}): string {
  const charts = [
    ...(input.comparison ? [input.comparison.chart] : []),
    ...input.sections.flatMap((s) => s.charts),
  ];
  // A live page carries what its charts over time are drawn from, to redraw them as intervals come.
  const live = options.live && {
    eventsPath: options.live.eventsPath,
    sections: input.sections.map((s) => ({ anchor: s.anchor, ...s.timeSeries })),
  };
  const data: PageData = { charts, live };
  // `<` escaped so no string in the data can close the script element.
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  const body = renderToString(Page(input));
  const script = asset('client.js').replace(/<\/script/gi, '<\\/script');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:${options.live ? `; connect-src 'self'` : ''}">
<title>${escapeText(input.title)}</title>
<style>${asset('uplot.css')}</style>
<style>${PAGE_CSS}</style>
</head>
<body>
${body}
<script type="application/json" id="${PAGE_DATA_ID}">${json}</script>
<script>${script}</script>
</body>
</html>
`;
}

function Page(input: ReportInput): VNode {
  return html`<main>
    <header>
      <h1>${input.title}</h1>
      <p class="disclaimer">${`${input.disclaimers.join(' ')} Generated ${input.generatedAt}.`.trim()}</p>
      <nav>
        <ul>
          ${input.comparison ? html`<li><a href="#comparison">comparison</a></li>` : null}
          ${input.sections.map((s) => html`<li><a href=${`#${s.anchor}`}>${s.id}</a> (${s.kind})</li>`)}
        </ul>
      </nav>
    </header>
    ${input.comparison ? Comparison(input.comparison, input.cost) : null} ${input.sections.map(Section)}
  </main>` as VNode;
}

function Comparison(comparison: NonNullable<ReportInput['comparison']>, cost: ReportInput['cost']): VNode {
  return html`<section id="comparison">
    <h2><a href="#comparison">Comparison</a></h2>
    ${comparison.noise === undefined ? null : html`<p class="noise"><strong>${comparison.noise}.</strong></p>`}
    ${comparison.warnings.map((w) => html`<p class="warning">${w}</p>`)} ${Chart(comparison.chart)}
    ${
      comparison.differences !== undefined && comparison.differences.rows.length > 0
        ? TableView(comparison.differences)
        : null
    }
    ${
      cost
        ? html`<h3>Drive cost</h3>
            ${cost.notes.map((n) => html`<p class="note">${n}</p>`)}
            ${TableView({
              title: 'drive cost',
              columns: COST_COLUMNS.map((c) => c.header),
              rows: cost.rows.map((r) => COST_COLUMNS.map((c) => c.text(r))),
            })}`
        : null
    }
  </section>` as VNode;
}

function Section(s: RunSection): VNode {
  return html`<section id=${s.anchor} class="run">
    <h2><a href=${`#${s.anchor}`}>${s.id}</a></h2>
    <p class="meta">
      ${[s.kind, s.status, s.label, s.startedAt ? `started ${s.startedAt}` : ''].filter(Boolean).join(' · ')}
    </p>
    ${
      s.missing.length > 0
        ? html`<div class="missing" role="alert">
            <strong>Missing or damaged:</strong>
            <ul>
              ${s.missing.map((m) => html`<li>${m}</li>`)}
            </ul>
          </div>`
        : null
    }
    ${
      s.cards.length > 0
        ? html`<div class="cards">
            ${s.cards.map(
              (c) =>
                html`<div class="card" data-card=${c.key}>
                  <div class="card-label">${c.label}</div>
                  <div class="card-value">${c.value}</div>
                </div>`,
            )}
          </div>`
        : null
    }
    ${s.notes.map((n) => html`<p class="note">${n}</p>`)} ${s.tables.map(TableView)} ${s.charts.map(Chart)}
    ${
      s.environment.length > 0
        ? html`<h3 id=${`${s.anchor}-environment`}>Environment</h3>
            <table class="env">
              <tbody>
                ${s.environment.map(
                  ([k, v]) =>
                    html`<tr>
                      <th scope="row">${k}</th>
                      <td>${v}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
        : null
    }
    ${
      s.commandLine !== undefined
        ? html`<h3>Command line</h3>
            <pre class="command">${s.commandLine}</pre>`
        : null
    }
  </section>` as VNode;
}

/** A chart with its numbers beside it, in a toggle that opens for print. */
function Chart(c: ChartSpec): VNode {
  const numbers = numbersTable(c);
  return html`<figure id=${c.id} class="chart-figure">
    <figcaption><a href=${`#${c.id}`}>${c.title}</a></figcaption>
    <div class="chart" data-chart=${c.id}></div>
    <details class="numbers">
      <summary>${numbersSummary(c)}</summary>
      <table>
        <thead>
          <tr>
            ${numbers.head.map((h) => html`<th>${h}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${numbers.rows.map(
            (r) =>
              html`<tr>
                ${r.map((v) => html`<td>${v}</td>`)}
              </tr>`,
          )}
        </tbody>
      </table>
    </details>
  </figure>` as VNode;
}

function TableView(t: Table): VNode {
  return html`<table class="figures">
    <caption>
      ${t.title}
    </caption>
    <thead>
      <tr>
        ${t.columns.map((c) => html`<th>${c}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${t.rows.map(
        (r) =>
          html`<tr>
            ${r.map((v) => html`<td>${v}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>` as VNode;
}

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
