// Colour values accepted from configuration before they reach CSS: `#hex`, `rgb()`/`rgba()` or a named
// colour. Anything else is ignored, so a value can never close a declaration or load a resource.

// CSS Color 4 named colours. A whitelist (not "any word") because an unknown keyword in a custom
// property makes the property invalid at use time, which would leave a button with no background.
const named = new Set(
  (
    'aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown ' +
    'burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan ' +
    'darkgoldenrod darkgray darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid ' +
    'darkred darksalmon darkseagreen darkslateblue darkslategray darkslategrey darkturquoise darkviolet ' +
    'deeppink deepskyblue dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ' +
    'ghostwhite gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki ' +
    'lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan lightgoldenrodyellow ' +
    'lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen lightskyblue lightslategray ' +
    'lightslategrey lightsteelblue lightyellow lime limegreen linen magenta maroon mediumaquamarine ' +
    'mediumblue mediumorchid mediumpurple mediumseagreen mediumslateblue mediumspringgreen mediumturquoise ' +
    'mediumvioletred midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive olivedrab ' +
    'orange orangered orchid palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru ' +
    'pink plum powderblue purple rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown ' +
    'seagreen seashell sienna silver skyblue slateblue slategray slategrey snow springgreen steelblue tan ' +
    'teal thistle tomato turquoise violet wheat white whitesmoke yellow yellowgreen'
  ).split(' '),
);

const hex = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
// Numbers, percentages, separators and an optional `/ alpha`: nothing that could end the value.
const rgb = /^rgba?\(\s*[\d.]+%?(?:\s*,\s*|\s+)[\d.]+%?(?:\s*,\s*|\s+)[\d.]+%?(?:\s*[,/]\s*[\d.]+%?)?\s*\)$/i;

/**
 * Returns the colour (trimmed) when it is a hex, `rgb()`/`rgba()` or named colour, else `undefined`.
 *
 * @example
 * safeColor('#24292f') // '#24292f'
 * safeColor('red;background:url(x)') // undefined
 */
export function safeColor(value: string | null | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim();
  if (hex.test(v) || rgb.test(v)) return v;
  return named.has(v.toLowerCase()) ? v.toLowerCase() : undefined;
}

/** Relative luminance (0 dark … 1 light) of a hex or rgb() colour, or undefined for other forms. */
function luminance(color: string): number | undefined {
  let parts: number[] | undefined;
  if (color.startsWith('#')) {
    const h = color.slice(1);
    const full = h.length <= 4 ? [...h.slice(0, 3)].map((c) => c + c).join('') : h.slice(0, 6);
    parts = [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16));
  } else if (/^rgb/i.test(color)) {
    parts = (color.match(/[\d.]+%?/g) ?? []).slice(0, 3).map((p) => (p.endsWith('%') ? parseFloat(p) * 2.55 : parseFloat(p)));
  } else if (color === 'white') {
    return 1;
  }
  if (!parts || parts.length < 3 || parts.some(Number.isNaN)) return undefined;
  const [r, g, b] = parts.map((c) => {
    const s = Math.min(255, c) / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * A text colour that stays readable on `background`: near-black on light colours, white otherwise
 * (including named colours, which brands rarely pick light).
 */
export function readableTextOn(background: string): string {
  const l = luminance(background);
  return l !== undefined && l > 0.3 ? '#111418' : '#ffffff';
}
