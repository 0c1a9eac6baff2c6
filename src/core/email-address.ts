// One spelling per mail domain: an internationalised domain is kept in its ASCII (punycode) form, so that
// `idn@bücher.example` and `idn@xn--bcher-kva.example` are one address wherever addresses are stored or compared.

// The WHATWG host parser (what node:url's domainToASCII runs), reached through URL so it works on any runtime. A
// character that would end the host inside a URL is refused first, so nothing but the domain is ever parsed.
const NOT_IN_A_HOST = /[\/?#\\@:%\s[\]^|<>]/;
function domainToASCII(domain: string): string {
  if (domain === '' || NOT_IN_A_HOST.test(domain)) return '';
  try {
    return new URL(`http://${domain}`).hostname;
  } catch {
    return '';
  }
}

/**
 * The address with its domain part in lower-case ASCII, mapped as browsers map host names (UTS #46, the WHATWG
 * URL rules); the local part is left as it is. Returns null when there is no `local@domain` split or the domain
 * is not a valid domain name, so each caller decides whether that refuses the address or keeps it as given.
 *
 * @example
 * asciiEmailDomain('idn@Bücher.example') // 'idn@xn--bcher-kva.example'
 * asciiEmailDomain('idn@xn--bcher-kva.example') // 'idn@xn--bcher-kva.example'
 * asciiEmailDomain('idn@xn--zz.example') // null
 */
export function asciiEmailDomain(address: string): string | null {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return null;
  const domain = domainToASCII(address.slice(at + 1));
  return domain ? `${address.slice(0, at + 1)}${domain}` : null;
}

/**
 * The form an address from elsewhere (an OAuth profile, `authorize`, a passkey label) is stored and looked up in:
 * its {@link asciiEmailDomain}, or the address as given when that has none (such a string can only ever match itself).
 *
 * @example
 * storedEmailOf('ada@Bücher.example') // 'ada@xn--bcher-kva.example'
 */
export function storedEmailOf(address: string): string {
  return asciiEmailDomain(address) ?? address;
}
