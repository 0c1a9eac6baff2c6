// Debian's Chromium driven by playwright-core, with a CDP virtual authenticator for WebAuthn tests, and fenced
// in to loopback: every request to another host is aborted (the OP's dev pages import a Google font, for one).
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type CDPSession, type Page } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser (`apt-get install -y chromium`). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
];

/**
 * Launches headless Chromium. Launching costs ~0.3 s and closing as much: share one browser per test file
 * (`beforeAll`/`afterAll`) and give each test a fresh context.
 *
 * @example const browser = await launchChromium(); ...; await browser.close();
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True for URLs a test page may load: loopback hosts, and non-network schemes (data:, blob:, about:). */
export function isLoopbackUrl(url: string): boolean {
  const parsed = URL.parse(url);
  if (!parsed) return false;
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:' && parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') return true;
  return LOOPBACK_HOSTS.has(parsed.hostname);
}

/**
 * Aborts every request of a context that does not go to loopback, so a test can never reach the network (and
 * does not wait for it).
 */
export async function fenceToLoopback(context: BrowserContext): Promise<void> {
  await context.route('**/*', (route) => (isLoopbackUrl(route.request().url()) ? route.continue() : route.abort('blockedbyclient')));
}

/** Virtual authenticator settings (CDP `WebAuthn.VirtualAuthenticatorOptions`); defaults make a platform passkey. */
export interface VirtualAuthenticatorOptions {
  protocol?: 'ctap2' | 'u2f';
  transport?: 'usb' | 'nfc' | 'ble' | 'cable' | 'internal';
  hasResidentKey?: boolean;
  hasUserVerification?: boolean;
  isUserVerified?: boolean;
  automaticPresenceSimulation?: boolean;
}

/** A credential held by the virtual authenticator (CDP `WebAuthn.Credential`). */
export interface VirtualCredential {
  /** base64 (standard alphabet, as CDP sends it), not base64url. */
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  /** PKCS#8 private key, base64. */
  privateKey: string;
  /** base64. */
  userHandle?: string;
  signCount: number;
}

/** A fresh context and page with a virtual authenticator attached. */
export interface AuthenticatorPage {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
  /** The credentials the authenticator holds now. */
  credentials(): Promise<VirtualCredential[]>;
  /** Makes the authenticator pass or fail user verification from now on. */
  setUserVerified(verified: boolean): Promise<void>;
  /** Closes the context (page, CDP session, authenticator). */
  close(): Promise<void>;
}

/**
 * Opens a new context fenced to loopback, with a CTAP2 platform authenticator that holds resident keys, verifies
 * the user and answers without a prompt. Open pages as `http://localhost:PORT`: WebAuthn refuses an IP address as
 * rpID, and localhost is a secure context over plain http.
 *
 * @example
 * const { page, credentials, close } = await newPageWithVirtualAuthenticator(browser);
 * await page.goto(`http://localhost:${port}/`);
 */
export async function newPageWithVirtualAuthenticator(
  browser: Browser,
  options: VirtualAuthenticatorOptions = {},
  contextOptions: BrowserContextOptions = {},
): Promise<AuthenticatorPage> {
  const context = await browser.newContext(contextOptions);
  try {
    await fenceToLoopback(context);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
        ...options,
      },
    });
    return {
      context,
      page,
      cdp,
      authenticatorId,
      async credentials() {
        const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
        return credentials as VirtualCredential[];
      },
      async setUserVerified(isUserVerified) {
        await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified });
      },
      close: () => context.close(),
    };
  } catch (error) {
    await context.close();
    throw error;
  }
}
