// The account pages' small script: "Copy" buttons (a setup key, backup codes) and "Print". Inline with the page's
// nonce. Without script the buttons stay hidden and the text stays selectable; downloading needs no script.
import { attr, html, raw, type SafeHtml } from '../../core/html-escape.js';

/** Shows each `[data-copy]` button, which copies the text of the element its value names; `[data-print]` prints. */
const source = `(function(){document.querySelectorAll('[data-copy],[data-print]').forEach(function(b){b.hidden=false;b.addEventListener('click',function(){if(b.hasAttribute('data-print')){window.print();return}var t=document.getElementById(b.getAttribute('data-copy'));if(!t||!navigator.clipboard)return;navigator.clipboard.writeText(t.innerText.trim()).then(function(){b.textContent=b.getAttribute('data-copied')||b.textContent},function(){})})})})();`;

/**
 * The script tag, carrying the response's CSP nonce.
 *
 * @example
 * html`${body}${copyScript(nonce)}`
 */
export function copyScript(nonce: string | undefined): SafeHtml {
  return html`<script${attr('nonce', nonce)}>${raw(source)}</script>`;
}

