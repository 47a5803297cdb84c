/** The report's own styles: light and dark (prefers-color-scheme), and a print layout. */
export const PAGE_CSS = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #ffffff; --muted: #57606a; --line: #d0d7de; --card: #f6f8fa; --warn: #9a6700; --alert-bg: #fff8c5; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9da7b3; --line: #30363d; --card: #161b22; --warn: #d29922; --alert-bg: #3b2e00; }
  .uplot .u-legend, .uplot text { color: var(--fg); }
}
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.6rem; margin: 0.5rem 0; } h2 { border-bottom: 1px solid var(--line); padding-bottom: 0.2rem; margin-top: 2.5rem; }
a { color: inherit; } .disclaimer, .meta, .note { color: var(--muted); }
.warning { color: var(--warn); }
.missing { background: var(--alert-bg); border: 1px solid var(--warn); padding: 0.5rem 1rem; border-radius: 6px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 0.6rem; margin: 1rem 0; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 0.5rem 0.7rem; }
.card-label { color: var(--muted); font-size: 0.8rem; } .card-value { font-size: 1.3rem; font-weight: 600; font-variant-numeric: tabular-nums; }
figure { margin: 1.5rem 0; break-inside: avoid; } figcaption { font-weight: 600; margin-bottom: 0.3rem; }
figcaption a { text-decoration: none; }
.chart { min-height: 300px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 0.5rem 0; }
th, td { border: 1px solid var(--line); padding: 0.15rem 0.5rem; text-align: right; }
th:first-child, td:first-child, .env td { text-align: left; } caption { text-align: left; font-weight: 600; }
details.numbers { margin-top: 0.3rem; } details.numbers summary { cursor: pointer; color: var(--muted); }
details.numbers table { font-size: 0.8rem; }
pre.command { background: var(--card); padding: 0.5rem; overflow-x: auto; white-space: pre-wrap; }
@media print {
  :root { --fg: #000; --bg: #fff; --muted: #333; --line: #999; --card: #fff; }
  body { font-size: 10pt; } main { max-width: none; padding: 0; } nav { display: none; }
  details.numbers summary { display: none; } a { text-decoration: none; }
  section.run, section#comparison { break-before: page; }
}
`;
