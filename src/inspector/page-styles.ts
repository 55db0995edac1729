// The inspector's stylesheet: system fonts, AA contrast in light and dark schemes, a focus ring that is always visible.

export const PAGE_STYLES: string = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1b1b; --muted: #4f4f4f; --line: #c9c9c9; --soft: #f3f4f6;
  --link: #0b57d0; --focus: #0b57d0; --accent-fg: #ffffff;
  --active-fg: #0b5d1e; --active-bg: #e3f3e6;
  --superseded-fg: #6b4b00; --superseded-bg: #fff2cc;
  --deleted-fg: #9b1c1c; --deleted-bg: #fde8e8;
  --unstructured-fg: #35357f; --unstructured-bg: #ebebfa;
  --danger: #b3261e;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #16181c; --fg: #ececec; --muted: #b4b4b4; --line: #4a4d55; --soft: #22252b;
    --link: #8ab4f8; --focus: #8ab4f8; --accent-fg: #111111;
    --active-fg: #9be3ad; --active-bg: #17351f;
    --superseded-fg: #f5d77f; --superseded-bg: #3a3014;
    --deleted-fg: #f7a8a8; --deleted-bg: #401c1c;
    --unstructured-fg: #c4c4ff; --unstructured-bg: #26264a;
    --danger: #f28b82;
  }
}
* { box-sizing: border-box; }
html { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; background: var(--bg); color: var(--fg); }
body { margin: 0; }
a { color: var(--link); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
main:focus { outline: none; }
h1:focus { outline: none; }
.skip-link { position: absolute; left: 0.5rem; top: -3rem; background: var(--bg); padding: 0.5rem 0.75rem; z-index: 10; }
.skip-link:focus { top: 0.5rem; }
.site-header { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: center; padding: 0.6rem 1.25rem; border-bottom: 1px solid var(--line); background: var(--soft); }
.brand { margin: 0; font-weight: 700; }
.site-header nav ul { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; }
.site-header nav a { text-decoration: none; padding: 0.2rem 0.1rem; }
.site-header nav a[aria-current="page"] { font-weight: 700; text-decoration: underline; text-underline-offset: 0.3em; }
.mode { margin: 0 0 0 auto; color: var(--muted); font-size: 0.9rem; }
.mode strong { color: var(--fg); }
.status { min-height: 1.5rem; padding: 0.25rem 1.25rem; color: var(--muted); font-size: 0.9rem; }
.status button { margin-left: 0.5rem; }
main { padding: 0 1.25rem 3rem; max-width: 80rem; }
h1 { font-size: 1.5rem; margin: 0.5rem 0 0.75rem; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 1.75rem 0 0.5rem; }
.breadcrumbs ol { display: flex; flex-wrap: wrap; gap: 0.25rem; list-style: none; margin: 0.75rem 0 0; padding: 0; font-size: 0.9rem; }
.breadcrumbs li + li::before { content: "›"; margin-right: 0.25rem; color: var(--muted); }
.lead { color: var(--muted); margin-top: 0; }
form.filters { display: flex; flex-wrap: wrap; gap: 0.75rem 1rem; align-items: flex-end; padding: 0.75rem; border: 1px solid var(--line); border-radius: 6px; margin: 0 0 1rem; }
form.filters fieldset { border: 0; padding: 0; margin: 0; display: contents; }
form.filters legend { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.field { display: flex; flex-direction: column; gap: 0.2rem; }
.field label { font-size: 0.85rem; font-weight: 600; }
.field.wide { flex: 1 1 22rem; }
input, select, textarea, button { font: inherit; color: inherit; }
input, select, textarea { background: var(--bg); border: 1px solid var(--muted); border-radius: 4px; padding: 0.3rem 0.45rem; min-height: 2.1rem; }
textarea { width: 100%; min-height: 4.5rem; resize: vertical; }
.hint { font-size: 0.8rem; color: var(--muted); }
button { cursor: pointer; border: 1px solid var(--link); background: var(--link); color: var(--accent-fg); border-radius: 4px; padding: 0.35rem 0.9rem; min-height: 2.1rem; }
button.secondary { background: transparent; color: var(--link); }
button.danger { background: var(--danger); border-color: var(--danger); color: var(--accent-fg); }
button.link { background: none; border: 0; color: var(--link); padding: 0; min-height: 0; text-decoration: underline; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; margin: 1rem 0; }
.summary { margin: 0.5rem 0; }
table { border-collapse: collapse; width: 100%; margin: 0.5rem 0 1rem; }
caption { text-align: left; font-weight: 600; padding: 0.25rem 0; }
th, td { text-align: left; padding: 0.4rem 0.6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 0.85rem; white-space: nowrap; }
th button.sort { background: none; border: 0; color: var(--link); padding: 0; min-height: 0; font-weight: 700; text-decoration: underline; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.content { max-width: 42rem; overflow-wrap: anywhere; }
td.time, td.id { white-space: nowrap; font-variant-numeric: tabular-nums; }
a.id, span.id { white-space: nowrap; }
code, .id { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.88em; }
.badge { display: inline-block; padding: 0 0.45rem; border-radius: 999px; font-size: 0.82rem; font-weight: 600; border: 1px solid currentColor; }
.badge.active { color: var(--active-fg); background: var(--active-bg); }
.badge.superseded { color: var(--superseded-fg); background: var(--superseded-bg); }
.badge.deleted { color: var(--deleted-fg); background: var(--deleted-bg); }
.badge.unstructured { color: var(--unstructured-fg); background: var(--unstructured-bg); }
.route { font-variant-numeric: tabular-nums; }
.route.missing { color: var(--muted); }
nav.pager { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; }
nav.pager ul { display: flex; gap: 0.75rem; list-style: none; margin: 0; padding: 0; }
.memory-content { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 1.1rem; padding: 0.75rem 1rem; border-left: 4px solid var(--line); background: var(--soft); margin: 0 0 1rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1.25rem; margin: 0; }
dl.facts dt { font-weight: 600; color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
ol.timeline { list-style: none; margin: 0; padding: 0 0 0 1.25rem; border-left: 3px solid var(--line); }
ol.timeline li { position: relative; margin: 0 0 1rem; padding: 0.5rem 0.75rem; border: 1px solid var(--line); border-radius: 6px; }
ol.timeline li::before { content: ""; position: absolute; left: -1.85rem; top: 0.9rem; width: 0.9rem; height: 0.9rem; border-radius: 50%; background: var(--bg); border: 3px solid var(--muted); }
ol.timeline li[aria-current="true"] { border-width: 2px; border-color: var(--link); }
ol.timeline li[aria-current="true"]::before { border-color: var(--link); background: var(--link); }
.timeline-head { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; font-size: 0.9rem; }
.timeline-content { margin: 0.35rem 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.why { margin: 0.35rem 0 0; font-size: 0.9rem; }
pre.json { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.85rem; }
.error { color: var(--danger); font-weight: 600; }
.notice { padding: 0.6rem 0.8rem; border: 1px solid var(--line); border-radius: 6px; background: var(--soft); }
dialog { border: 1px solid var(--line); border-radius: 8px; padding: 1.25rem; max-width: 34rem; background: var(--bg); color: var(--fg); }
dialog::backdrop { background: rgb(0 0 0 / 0.45); }
dialog h2 { margin-top: 0; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;
