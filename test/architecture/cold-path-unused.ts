// What a credentials-only app's first sign-in may not load: the unused factors' flows and providers (e-mail
// included: the throttle, on by default in production, loads the e-mail normaliser only for a magic-link request),
// and the libraries behind them; nor the built-in pages (a sign-in that succeeds redirects), nor rate-limiter-flexible
// (the default memory store counts by itself), nor the runners of signed-in and account flows (change-password, sign-up). Matched against module paths (`/src/...` of the sources or of a bundle's regions, and
// `/node_modules/<package>/...`); shared by the source check and the packed-build check.
export const UNUSED_ON_CREDENTIALS: readonly RegExp[] = [
  /\/src\/flows\/(oauth|second-factor|webauthn|logout|email)\//,
  /\/src\/flows\/tokens\/(machine|steps)\.ts$/,
  /\/src\/flows\/runtime\/(signed-in-run|account-run)\.ts$/,
  /\/src\/providers\/(oauth[^/]*|webauthn|email)\.ts$/,
  /\/src\/providers\/catalogue\//,
  /\/src\/http\/pages\/(?!load\.ts$)/,
  /\/node_modules\/(@oslojs|oauth4webapi|jose|@simplewebauthn|uqr|rate-limiter-flexible)\//,
];
