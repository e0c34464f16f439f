// Each failed test with its evidence: the error, the spec text of the clauses it blamed (the clauses
// whose assertions failed, contracts/support/blame.ts), the clauses it names but did not reach because
// it stopped, and the last exchanges it made (request, response, a curl line; the key was redacted
// before the reporter wrote them, contracts/support/evidence.ts). Collapsed: a release manager opens
// the one they care about.
import { esc, pre, stripAnsi } from './escape.ts';
import type { Exchange } from '../core/formats.ts';
import type { ReportInputs } from './inputs.ts';
import { sectionLabel } from './sections.ts';

function exchange(e: Exchange, n: number): string {
  const headers = e.requestHeaders && Object.keys(e.requestHeaders).length ? pre(e.requestHeaders) : '';
  return `<div class="exchange"><div class="ex-line"><span class="muted">exchange ${n}</span> <code>${esc(e.method)} ${esc(e.path)}</code> → <b class="http-${Math.floor(e.status / 100)}xx">${esc(e.status)}</b></div>
<div class="label">curl (the key is left as $CONSOLE_API_KEY)</div>${pre(e.curl, 'curl')}
<div class="cols"><div><div class="label">request${headers ? ' headers and body' : ' body'}</div>${headers}${pre(e.requestBody ?? '(no body)')}</div><div><div class="label">response body</div>${pre(e.responseBody ?? '(empty)')}</div></div></div>`;
}

export function failuresSection(i: ReportInputs): string {
  const failures = i.conformance?.failures ?? [];
  const clauses = new Map((i.conformance?.clauses ?? []).map((c) => [c.id, c]));
  const counting = failures.filter((f) => f.counts).length;
  const items = failures.map((f, n) => {
    const kind = f.counts ? 'FAIL' : 'WARN';
    // A report written before blame names every clause of the test as failed.
    const blamed = f.blamed ?? f.clauses;
    const unreached = f.unreached ?? [];
    const spec = blamed.map((id) => {
      const c = clauses.get(id);
      return `<li><code>${esc(id)}</code>${c ? ` <span class="muted">spec ${esc(sectionLabel(c.section))}, ${esc(c.level)}</span><blockquote>${esc(c.text ?? '')}</blockquote>` : ''}</li>`;
    });
    const notReached = unreached.length
      ? `<div class="label">not reached</div><p class="unreached small">The test stopped at this failure before it checked ${unreached.length === 1 ? 'this clause' : `these ${unreached.length} clauses`}: neither passed nor failed in this run. ${unreached.map((id) => `<code>${esc(id)}</code>`).join(' ')}</p>`
      : '';
    return `<details class="failure k-${kind}" id="failure-${n + 1}" data-clauses="${esc(blamed.join(' '))}"><summary><span class="tag k-${kind}">${kind}</span> <span class="muted">[${esc(f.level)}]</span> ${esc(f.test)} <span class="blamed">${esc(blamed.join(', '))}</span>${unreached.length ? ` <span class="muted">(${unreached.length} not reached)</span>` : ''}</summary>
<div class="failure-body"><div class="label">what went wrong</div>${pre(stripAnsi(f.error ?? '(no message)'), 'error')}
<div class="label">spec of the clause${blamed.length === 1 ? '' : 's'} it failed</div><ul class="spec">${spec.join('')}</ul>${notReached}
<div class="muted small">test: ${esc(f.file)}</div>
${f.exchanges.length ? f.exchanges.map((e, k) => exchange(e, k + 1)).join('\n') : '<p class="muted">No HTTP exchange recorded.</p>'}</div></details>`;
  });
  const inconclusive = (i.conformance?.inconclusive ?? []).map(
    (
      x,
      n,
    ) => `<details class="failure k-INCONCLUSIVE" id="inconclusive-${n + 1}"><summary><span class="tag">INCONCLUSIVE</span> ${esc(x.test)} <span class="muted">${esc(x.clauses.join(', '))}</span></summary>
<div class="failure-body">${pre(x.reason, 'error')}${x.exchange ? exchange(x.exchange, 1) : ''}</div></details>`,
  );
  const heading =
    failures.length === 0
      ? 'Failures'
      : `Failures (${counting} failing the run${failures.length > counting ? `, ${failures.length - counting} warnings` : ''})`;
  return `<section id="failures"><h2>${heading}</h2>
${items.length ? `<p class="muted">Open one to see the spec text, the error and the exchanges that show it.</p>\n${items.join('\n')}` : i.conformance ? '<p class="ok">No test failed.</p>' : '<p class="muted">The conformance suite did not run: the stages above say why.</p>'}
${inconclusive.length ? `<h3 id="inconclusive">Inconclusive: the network gave no usable answer (${inconclusive.length})</h3>\n<p class="muted">These tests checked nothing: neither pass nor failure of the target (docs/transport.md).</p>\n${inconclusive.join('\n')}` : ''}
</section>`;
}
