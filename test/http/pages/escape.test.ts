import { describe, expect, it } from 'vitest';
import { attr, escapeHtml, html, raw, safeColor, safeUrl } from '../../../src/http/pages/index.js';

describe('escapeHtml', () => {
  it('escapes the characters that end text or a quoted attribute', () => {
    expect(escapeHtml(`<a href="x" title='y'>&\``)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&#96;');
  });
  it('renders nullish as empty and stringifies the rest', () => {
    expect(escapeHtml(undefined)).toBe('');
    expect(escapeHtml(null)).toBe('');
    expect(escapeHtml(42)).toBe('42');
  });
});

describe('safeUrl', () => {
  it.each(['https://example.com/a?b=c', 'http://localhost:3000/', '/auth/signin', '?error=x', '#top', 'logo.svg', '//cdn.example/x.png'])(
    'keeps %s',
    (url) => expect(safeUrl(url)).toBe(url),
  );
  it.each([
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    'java\tscript:alert(1)',
    '\u0001javascript:alert(1)',
    ' javascript:alert(1)',
    'vbscript:msgbox(1)',
    'data:text/html,<script>alert(1)</script>',
    'data:image/svg+xml,<svg/>',
    'file:///etc/passwd',
    'http://[bad',
  ])('drops %j', (url) => expect(safeUrl(url)).toBeUndefined());
  it('accepts data:image/svg+xml only when asked, and never other data URLs', () => {
    expect(safeUrl('data:image/svg+xml;base64,PHN2Zy8+', { allowSvgData: true })).toBe('data:image/svg+xml;base64,PHN2Zy8+');
    expect(safeUrl('data:image/svg+xml,%3Csvg%2F%3E', { allowSvgData: true })).toBe('data:image/svg+xml,%3Csvg%2F%3E');
    expect(safeUrl('data:text/html,x', { allowSvgData: true })).toBeUndefined();
    expect(safeUrl('javascript:alert(1)', { allowSvgData: true })).toBeUndefined();
  });
  it('drops non-strings', () => expect(safeUrl(undefined)).toBeUndefined());
});

describe('html', () => {
  it('escapes interpolations, joins arrays, keeps SafeHtml and drops nullish/false', () => {
    const name = '<b>"x"</b>';
    const out = html`<p title="${name}">${[name, html`<i>${'&'}</i>`]}${null}${undefined}${false}${raw('<br>')}${0}</p>`;
    expect(out.value).toBe('<p title="&lt;b&gt;&quot;x&quot;&lt;/b&gt;">&lt;b&gt;&quot;x&quot;&lt;/b&gt;<i>&amp;</i><br>0</p>');
  });
  it('attr omits absent values and escapes present ones', () => {
    expect(attr('href', undefined).value).toBe('');
    expect(attr('value', '"><x').value).toBe(' value="&quot;&gt;&lt;x"');
    expect(() => attr('onclick x', 'y')).toThrow(TypeError);
  });
});

describe('safeColor', () => {
  it.each(['#fff', '#FFFF', '#24292f', '#24292f80', 'rgb(1, 2, 3)', 'rgba(1,2,3,0.5)', 'rgb(10% 20% 30% / 50%)', 'rebeccapurple'])('keeps %s', (c) =>
    expect(safeColor(c)).toBe(c),
  );
  it('normalises named colours to lower case', () => expect(safeColor(' Red ')).toBe('red'));
  it.each(['red;background:url(x)', '#ggg', '#12345', 'rgb(1,2,3);x:y', 'rgb(1,2)', 'url(x)', 'expression(alert(1))', 'notacolor', 'var(--x)', '', '</style>'])(
    'drops %j',
    (c) => expect(safeColor(c)).toBeUndefined(),
  );
});
