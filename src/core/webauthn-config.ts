// The one start-up check that spans several WebAuthn providers: conditional UI (passkey autofill) can serve only
// one provider, and needs a form field the browser can autofill. Plain data checks, so core can run them.
import { DuplicateConditionalUI, MissingWebAuthnAutocomplete } from './errors.js';
import type { CommonProviderOptions } from './provider.js';

/** The fields of a WebAuthn provider this check reads. */
interface ConditionalUIProvider extends CommonProviderOptions {
  enableConditionalUI?: boolean;
  formFields?: Record<string, { autocomplete?: string }>;
}

/**
 * Checks the WebAuthn providers of a configuration at start: conditional UI on at most one provider, and only
 * with a form field the browser can attach autofill to.
 *
 * @throws DuplicateConditionalUI, MissingWebAuthnAutocomplete
 * @example assertConditionalUI(config.providers)
 */
export function assertConditionalUI(providers: readonly CommonProviderOptions[]): void {
  const conditional = providers.filter((p) => p.type === 'webauthn' && (p as Partial<ConditionalUIProvider>).enableConditionalUI === true) as ConditionalUIProvider[];
  if (conditional.length > 1) {
    throw new DuplicateConditionalUI(`Only one provider may enable conditional UI; found ${conditional.map((p) => `"${p.id}"`).join(', ')}.`, {
      actual: conditional.map((p) => p.id),
    });
  }
  for (const p of conditional) {
    const fields = Object.values(p.formFields ?? {});
    if (!fields.some((f) => (f.autocomplete ?? '').split(/\s+/).includes('webauthn'))) {
      throw new MissingWebAuthnAutocomplete(`Provider "${p.id}" enables conditional UI but none of its formFields has "webauthn" in its autocomplete.`, {
        expected: 'autocomplete: "username webauthn"',
      });
    }
  }
}
