/** The dashboard's stylesheet: system fonts, light and dark, visible focus, no external resources. */
export const STYLE_CSS = String.raw`:root {
  color-scheme: light dark;
  --bg: #ffffff;
  --fg: #1b1f24;
  --muted: #57606a;
  --line: #d0d7de;
  --panel: #f6f8fa;
  --accent: #0a58ca;
  --ok: #116329;
  --warn: #8a4b00;
  --bad: #b42318;
  --ok-bg: #dafbe1;
  --warn-bg: #fff1c2;
  --bad-bg: #ffe2dd;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117;
    --fg: #e6edf3;
    --muted: #9da7b3;
    --line: #30363d;
    --panel: #161b22;
    --accent: #6cb6ff;
    --ok: #7ee2a8;
    --warn: #f2cc60;
    --bad: #ff9492;
    --ok-bg: #12261e;
    --warn-bg: #2e2411;
    --bad-bg: #3a1618;
  }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; background: var(--bg); color: var(--fg); }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
/* Headings and main receive focus on navigation (for screen readers), not as controls. */
[tabindex="-1"]:focus { outline: none; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.92em; }
pre { background: var(--panel); border: 1px solid var(--line); padding: 0.75rem; overflow: auto; max-height: 24rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 0.5rem; }
.skip { position: absolute; left: -999px; top: 0; background: var(--bg); padding: 0.5rem; }
.skip:focus { left: 0.5rem; z-index: 10; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.top { display: flex; align-items: center; gap: 1.5rem; padding: 0.6rem 1.25rem; border-bottom: 1px solid var(--line); background: var(--panel); }
.brand { font-weight: 700; }
.top nav ul { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; }
.top nav a { text-decoration: none; padding: 0.25rem 0.1rem; }
.top nav a[aria-current="page"] { font-weight: 700; border-bottom: 2px solid var(--accent); }
.top #signout { margin-left: auto; }
main { padding: 1.25rem; max-width: 76rem; }
.banner { padding: 0.5rem 1.25rem; border-bottom: 1px solid var(--line); }
.banner.ok { background: var(--ok-bg); color: var(--ok); }
.banner.warn { background: var(--warn-bg); color: var(--warn); }
.banner.bad { background: var(--bad-bg); color: var(--bad); }
button { font: inherit; padding: 0.4rem 0.9rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
button:disabled { opacity: 0.55; cursor: not-allowed; }
input, select { font: inherit; padding: 0.35rem 0.5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
label { font-weight: 600; }
.row { display: flex; flex-wrap: wrap; align-items: end; gap: 0.75rem; margin: 0.75rem 0; }
.field { display: flex; flex-direction: column; gap: 0.2rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(13rem, 1fr)); gap: 0.75rem; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem 1rem; background: var(--panel); }
.card .value { font-size: 1.6rem; font-weight: 700; }
.card .label { color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin: 0.5rem 0 1rem; }
caption { text-align: left; font-weight: 600; padding: 0.25rem 0; }
th, td { text-align: left; padding: 0.35rem 0.6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1rem; margin: 0.5rem 0 1rem; }
dl.kv dt { color: var(--muted); }
dl.kv dd { margin: 0; }
.badge { display: inline-block; padding: 0.05rem 0.5rem; border-radius: 999px; font-size: 0.85em; font-weight: 600; border: 1px solid currentColor; }
.badge.ok { color: var(--ok); background: var(--ok-bg); }
.badge.warn { color: var(--warn); background: var(--warn-bg); }
.badge.bad { color: var(--bad); background: var(--bad-bg); }
.badge.info { color: var(--muted); }
.error { border: 1px solid var(--bad); background: var(--bad-bg); color: var(--bad); padding: 0.6rem 0.8rem; border-radius: 6px; }
.error ul { margin: 0.3rem 0 0; }
.muted { color: var(--muted); }
progress { width: 100%; max-width: 32rem; height: 1.1rem; }
.signin { display: grid; place-items: center; min-height: 100vh; padding: 1rem; }
.signin form { width: min(26rem, 100%); display: flex; flex-direction: column; gap: 0.6rem; border: 1px solid var(--line); border-radius: 10px; padding: 1.5rem; background: var(--panel); }
`;
