// The development inspector's pages: the last flows as a table, and one flow with its evidence, its trace and its
// machine diagram (the path it took highlighted, the failing state marked; Mermaid, 3.5 MB, loads only when the
// diagram comes into view). Every value is escaped.
import type { AnyStateMachine } from 'xstate';
import { machineStates } from './graph.js';
import { toMermaidPath } from './mermaid.js';
import { namedTrace } from './guard-names.js';
import { guardLabel } from '../flows/runtime/observe/refs.js';
import type { LoggedFlow } from '../flows/runtime/log.js';
import type { FlowRecord } from '../flows/runtime/record.js';
import { attr, html, raw, type HtmlValue, type SafeHtml } from '../core/html-escape.js';

/** Where the inspector lives and how it may draw diagrams. */
export interface InspectPageContext {
  /** `{basePath}/_inspect`, the prefix of every inspector link. */
  inspectPath: string;
  /** The URL of the Mermaid bundle, or null when `mermaid` is not installed (the source is shown instead). */
  mermaidUrl: string | null;
  /** The nonce the Content-Security-Policy allows scripts with. */
  nonce: string;
  /** How many flows the log keeps. */
  capacity: number;
  /** Every browser's flows are listed (`debug: { inspector: 'shared' }`), not only this browser's. */
  shared?: boolean;
}

const CSS = `
:root{color-scheme:light dark;--bg:#f6f7f9;--fg:#16181d;--muted:#5b6270;--line:#d5d9e0;--card:#fff;--ok:#1e8e3e;--bad:#b71c1c;--wait:#8a6d00}
@media (prefers-color-scheme:dark){:root{--bg:#101215;--fg:#eceef1;--muted:#a3a9b4;--line:#353a44;--card:#1b1e23;--ok:#81c995;--bad:#f28b82;--wait:#fdd663}}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:1280px;margin:0 auto;padding:20px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}
a{color:inherit}.muted{color:var(--muted)}
.banner{border:1px solid var(--line);border-left:4px solid var(--wait);background:var(--card);padding:8px 12px;margin:12px 0}
table{border-collapse:collapse;width:100%;background:var(--card)}
.scroll{overflow-x:auto}
td.mono{overflow-wrap:anywhere}
@media (max-width:640px){main{padding:12px}th,td{padding:4px 5px}.trace td:nth-child(2),.trace th:nth-child(2){display:none}}
details.quiet{margin:12px 0}
.zoom{display:flex;gap:6px;align-items:center;margin:0 0 6px}
.zoom button{font:inherit;padding:2px 10px;border:1px solid var(--line);background:var(--card);color:var(--fg);border-radius:6px;cursor:pointer}
.diagram svg{max-width:none!important;height:auto}
th,td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}
th{font-weight:600;color:var(--muted)}
td.num{text-align:right;font-variant-numeric:tabular-nums}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
pre{white-space:pre-wrap;word-break:break-word;background:var(--card);border:1px solid var(--line);padding:10px;margin:0}
.status-failed{color:var(--bad);font-weight:600}.status-signedIn{color:var(--ok);font-weight:600}
.status-paused{color:var(--wait);font-weight:600}.status-redirected{font-weight:600}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0;background:var(--card);border:1px solid var(--line);padding:10px}
dt{color:var(--muted)}dd{margin:0}
.evidence{border-left:4px solid var(--bad)}
.diagram{background:#fff;border:1px solid var(--line);padding:10px;overflow:auto}
.diagram pre.mermaid{border:0;padding:0;background:#fff;color:#000}
.legend span{display:inline-block;padding:0 6px;margin-right:8px;border:2px solid}
.lg-visited{border-color:#1e8e3e!important;background:#e6f4ea;color:#000}.lg-failed{border-color:#b71c1c!important;border-width:4px!important;background:#f28b82;color:#000}
`;

// Loads Mermaid once the diagram is on screen (never for a page read only for its trace), draws it at a readable
// size, and lets the zoom buttons scale it. The bundle's URL is the diagram's data attribute; the bundle runs by this
// script's own nonce (never written into the page where injected markup could read it).
const DRAW_SCRIPT = `(function () {
  var nonce = document.currentScript && document.currentScript.nonce;
  var box = document.querySelector('.diagram[data-mermaid-src]');
  if (!box) return;
  var zoom = 1, natural = 0;
  function scale() {
    var svg = box.querySelector('svg');
    if (!svg) return;
    if (!natural) natural = svg.getBoundingClientRect().width || svg.viewBox.baseVal.width;
    svg.style.width = Math.round(natural * zoom) + 'px';
  }
  document.querySelectorAll('[data-zoom]').forEach(function (b) {
    b.addEventListener('click', function () {
      var z = b.getAttribute('data-zoom');
      zoom = z === 'fit' ? Math.min(1, (box.clientWidth - 20) / (natural || 1)) : Math.max(0.25, Math.min(4, zoom * Number(z)));
      scale();
    });
  });
  function draw() {
    var s = document.createElement('script');
    s.src = box.getAttribute('data-mermaid-src');
    s.nonce = nonce;
    s.onload = function () {
      mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', themeVariables: { fontSize: '16px' }, state: { useMaxWidth: false } });
      mermaid.run({ querySelector: 'pre.mermaid' }).then(scale);
    };
    document.body.appendChild(s);
  }
  if (!('IntersectionObserver' in window)) return draw();
  var seen = new IntersectionObserver(function (entries) {
    if (entries.some(function (e) { return e.isIntersecting; })) { seen.disconnect(); draw(); }
  });
  seen.observe(box);
})();`;

function layout(title: string, body: SafeHtml, ctx: InspectPageContext, withDiagram = false): string {
  const scripts = withDiagram && ctx.mermaidUrl ? html`<script${attr('nonce', ctx.nonce)}>${raw(DRAW_SCRIPT)}</script>` : '';
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${title}</title><style>${raw(CSS)}</style></head>
<body><main>
<p class="muted"><a${attr('href', ctx.inspectPath)}>authchart inspector</a> · development only: <code>debug</code> on and not production · ${ctx.shared ? html`every browser's flows (<code>debug: { inspector: 'shared' }</code>)` : 'the flows this browser ran'}</p>
${body}
</main>${scripts}</body></html>`.value;
}

function statusCell(record: FlowRecord): SafeHtml {
  const detail = record.error ? html` <span class="mono">${record.error.type}</span>` : '';
  return html`<span${attr('class', `status-${record.status}`)}>${record.status}</span>${detail}`;
}

function time(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/**
 * The list page: the logged flows, newest first, with provider, result and duration.
 *
 * @example
 * renderInspectList(flowLogFor(config)!.list(), ctx)
 */
export function renderInspectList(all: LoggedFlow[], ctx: InspectPageContext): string {
  // Truly newest first, whatever order the log keeps; flows that stopped at their first pause (a passkey autofill
  // request on every sign-in page view, a sign-in abandoned at the provider) are folded away below the rest.
  const newestFirst = [...all].sort((a, b) => b.record.startedAt - a.record.startedAt);
  const idle = newestFirst.filter(stoppedAtFirstPause);
  const flows = newestFirst.filter((f) => !stoppedAtFirstPause(f));
  const row = ({ record, runs }: LoggedFlow) => {
    const href = `${ctx.inspectPath}/${record.id}`;
    return html`<tr>
<td class="mono">${time(record.startedAt)}</td>
<td class="mono"><a${attr('href', href)}>${record.id}</a></td>
<td>${record.provider}</td>
<td>${record.machine}</td>
<td>${statusCell(record)}</td>
<td class="mono">${record.error?.state ?? ''}</td>
<td class="num">${runs.length}</td>
<td class="num">${record.durationMs} ms</td>
</tr>`;
  };
  const head = html`<thead><tr><th>started (UTC)</th><th>flow</th><th>provider</th><th>machine</th><th>result</th><th>failed in</th><th>requests</th><th>duration</th></tr></thead>`;
  const table =
    flows.length === 0
      ? html`<p>No flows ${idle.length ? 'past their first step' : 'yet'}${ctx.shared ? '' : ' from this browser'}. Sign in once and reload this page.</p>`
      : html`<div class="scroll"><table>${head}<tbody>${flows.map(row)}</tbody></table></div>`;
  const folded = idle.length
    ? html`<details class="quiet"><summary>${idle.length} flow${idle.length === 1 ? '' : 's'} that stopped at ${idle.length === 1 ? 'its' : 'their'} first pause (passkey autofill on a sign-in page view, a sign-in left at the provider)</summary>
<div class="scroll"><table>${head}<tbody>${idle.map(row)}</tbody></table></div></details>`
    : '';
  const body = html`<h1>Flows</h1>
<p class="muted">The last ${all.length} of at most ${ctx.capacity} flows this server ran${ctx.shared ? '' : ' that this browser took part in'}, newest first. Kept in memory only; a restart forgets them. <a${attr('href', ctx.inspectPath)}>Reload</a></p>
${table}
${folded}`;
  return layout('authchart inspector', body, ctx);
}

/** A flow that paused once and was never resumed: it shows nothing but its start. */
function stoppedAtFirstPause({ record, runs }: LoggedFlow): boolean {
  return record.status === 'paused' && runs.length <= 1;
}

/** The state to mark as failing: the evidence's state when the machine has it (the first of parallel leaves). */
function failingState(machine: AnyStateMachine, record: FlowRecord): string | undefined {
  const states = new Set(machineStates(machine));
  return record.error?.state?.split(',').find((id) => states.has(id));
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function evidence(record: FlowRecord): SafeHtml | string {
  const e = record.error;
  if (!e) return '';
  const row = (name: string, value: HtmlValue) => (value === undefined ? '' : html`<dt>${name}</dt><dd class="mono">${value}</dd>`);
  return html`<h2>Why it failed</h2>
<dl class="evidence">
${row('error', e.type)}${row('message', e.message)}${row('state', e.state)}${row('event', e.event)}
${row('expected', e.expected === undefined ? undefined : show(e.expected))}${row('actual', e.actual === undefined ? undefined : show(e.actual))}${row('cause', e.cause)}
</dl>
${e.state === undefined && record.trace.length === 0 ? html`<p class="muted">The flow failed before its machine ran, so the diagram shows no path.</p>` : ''}`;
}

function diagram(flow: LoggedFlow, ctx: InspectPageContext): SafeHtml {
  const failing = failingState(flow.machine, flow.record);
  const source = toMermaidPath(flow.machine, flow.record.trace, failing);
  const note = ctx.mermaidUrl
    ? ''
    : html`<p class="muted">Install the optional <code>mermaid</code> package (<code>npm i -D mermaid</code>) to see this drawn; until then, here is its Mermaid source (GitHub and most editors render it).</p>`;
  // The legend names only what this drawing has.
  const legend = [
    flow.record.trace.length ? html`<span class="lg-visited">visited</span>` : '',
    failing ? html`<span class="lg-failed">failed here</span>` : '',
    flow.record.trace.length ? html`edge labels start with the step numbers that took them: <code>(1) ${flow.record.trace[0].event}</code>` : 'no transition was taken',
  ];
  const zoom = ctx.mermaidUrl
    ? html`<div class="zoom" aria-label="zoom"><button type="button" data-zoom="0.8" aria-label="zoom out">−</button><button type="button" data-zoom="1.25" aria-label="zoom in">+</button><button type="button" data-zoom="fit">fit</button></div>`
    : '';
  return html`<h2>Path through the <code>${flow.record.machine}</code> machine</h2>
<p class="legend muted">${legend}</p>
${note}${zoom}<div class="diagram"${attr('data-mermaid-src', ctx.mermaidUrl ?? undefined)}><pre class="mermaid">${source}</pre></div>`;
}

function traceTable(flow: LoggedFlow): SafeHtml {
  let step = 0;
  const rows = flow.runs.map((run, index) => {
    const head = html`<tr><th colspan="6">request ${index + 1}: ${run.status}${run.error ? html` (${run.error.type})` : ''} · ${time(run.startedAt)} · ${run.durationMs} ms</th></tr>`;
    const steps = namedTrace(flow.machine, run.trace).map((t) => {
      step += 1;
      return html`<tr><td class="num">${step}</td><td class="num">+${Math.max(0, t.at - run.startedAt)} ms</td><td class="mono">${t.from}</td><td class="mono">${t.event}</td><td class="mono">${guardLabel(t) ?? ''}</td><td class="mono">${t.to}</td></tr>`;
    });
    return html`${head}${steps.length > 0 ? steps : html`<tr><td colspan="6" class="muted">no transition</td></tr>`}`;
  });
  return html`<h2>Trace</h2>
<div class="scroll"><table class="trace"><thead><tr><th>step</th><th>at</th><th>from</th><th>event</th><th>guard</th><th>to</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/**
 * The page of one flow: summary, evidence, the diagram with its path, the trace per request, and the raw records.
 *
 * @example
 * renderInspectFlow(flowLogFor(config)!.get(id)!, ctx)
 */
export function renderInspectFlow(flow: LoggedFlow, ctx: InspectPageContext): string {
  const { record } = flow;
  const body = html`<h1>Flow <span class="mono">${record.id}</span></h1>
<dl>
<dt>provider</dt><dd>${record.provider}</dd>
<dt>machine</dt><dd class="mono">${record.machine}</dd>
<dt>result</dt><dd>${statusCell(record)}</dd>
<dt>started</dt><dd class="mono">${time(record.startedAt)} UTC</dd>
<dt>duration</dt><dd>${record.durationMs} ms in ${flow.runs.length} request${flow.runs.length === 1 ? '' : 's'}</dd>
</dl>
${evidence(record)}
${traceTable(flow)}
${diagram(flow, ctx)}
<h2>Records</h2>
<details><summary>as <code>logger.debug</code> received them</summary><pre>${JSON.stringify(flow.runs, null, 2)}</pre></details>`;
  return layout(`flow ${record.id} · authchart inspector`, body, ctx, true);
}

/** The page for an id the log does not hold (never existed, or dropped as older than the last flows). */
export function renderInspectMissing(ctx: InspectPageContext): string {
  const body = html`<h1>No such flow</h1>
<p>The inspector keeps the last ${ctx.capacity} flows in memory; this one is not among them${ctx.shared ? '' : ', or another browser ran it'}.</p>`;
  return layout('No such flow · authchart inspector', body, ctx);
}
