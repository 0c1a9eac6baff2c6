// The English text of every built-in page and mail, by message id: the default, and the list of ids every other
// locale must have. `{name}` marks a value put in when rendered (escaped on pages).

export const en = {
  // Shared
  'common.signIn': 'Sign in',
  'common.continue': 'Continue',
  'common.backTo': 'Back to {host}',
  'common.backHome': 'Back to the home page',
  'common.or': 'or',
  'common.passkeysNeedScript': 'Passkeys need JavaScript to be enabled.',

  // Sign-in page
  'signin.title': 'Sign in',
  'signin.with': 'Sign in with {provider}',
  'signin.emailLabel': 'Email address',
  'signin.emailPlaceholder': 'name@example.com',
  'signin.emailLink': 'Email me a sign-in link',
  'signin.passkey': 'Sign in with a passkey',
  'signin.passkeyAdd': 'Add a passkey',
  'signin.passkeyAddNote': '{button} to the account signed in now.',
  'signin.passkeyCreate': 'Create a passkey',
  'signin.passkeyCreateNote': 'New here? {button} for this address.',
  'signin.withoutPassword': 'Without a password',
  'signin.signedInAs': 'You are signed in as {who}.',
  'signin.otherAccount': 'To use another account, sign in with it below.',
  'signin.why': 'Sign in to see that page ({page}).',
  'signin.none': 'No sign-in methods are configured.',

  // The passkey script's status lines (passed to it as data-text-* attributes)
  'passkey.cancelled': 'The passkey request was cancelled or timed out.',
  'passkey.exists': 'This device already holds a passkey for this account.',
  'passkey.insecure': 'Passkeys cannot be used on this address.',
  'passkey.failed': 'The passkey could not be used:',
  'passkey.needEmail': 'Enter your email address to register a passkey.',
  'passkey.dialog': 'Continue in your browser’s passkey dialog…',
  'passkey.unsupported': 'This browser does not support passkeys.',

  // Sign-in errors (on the sign-in page, and on the error page for a sign-in error routed there)
  'signin.error.default': 'Unable to sign in. Try again, or choose a different way to sign in.',
  'signin.error.CredentialsSignin': 'Sign in failed. Check the details you provided are correct.',
  'signin.error.OAuthAccountNotLinked': 'To confirm your identity, sign in with the same account you used originally.',
  'signin.error.AccountNotLinked': 'This account is already linked to another user. Sign in with the account you used originally.',
  'signin.error.MissingCSRF': 'This sign-in form has expired. Reload the page and try again.',
  'signin.error.OAuthCallbackError': 'The sign-in provider reported a problem. Try again, or choose a different way to sign in.',
  'signin.error.OAuthSignInError': 'Sign in with that provider could not be started. Try again, or choose a different way to sign in.',
  'signin.error.AccessDenied': 'You do not have permission to sign in.',
  'signin.error.Verification': 'That sign-in link is no longer valid. It may have been used already or it may have expired. Request a new one below.',
  'signin.error.EmailSignInError': 'The sign-in e-mail could not be sent. Check your address and try again.',
  'signin.error.RateLimited': 'Too many sign-in attempts. Wait a few minutes, then try again.',
  'signin.error.WebAuthnVerificationError': 'Your passkey could not be verified. Try again, or choose a different way to sign in.',
  'signin.error.Configuration': 'Sign in is unavailable right now because of a server problem. Please try again later.',
  'signin.error.SessionRequired': 'Please sign in to view this page.',
  'signin.error.CreateAccount': 'Your account could not be created. Try again, or choose a different way to sign in.',
  'signin.error.passkeyNotLinked':
    'That passkey is for a different account than the one signed in here. To add a passkey to an account, sign in to that account first, then add the passkey from its account page. To use this passkey, sign out first.',
  'signin.error.cancelledWith': 'Signing in with {provider} was cancelled. Try again, or choose a different way to sign in.',
  'signin.error.cancelled': 'The sign-in was cancelled. Try again, or choose a different way to sign in.',

  // Sign-out page
  'signout.title': 'Sign out',
  'signout.notSignedIn': 'You are not signed in, so there is nothing to sign out of.',
  'signout.continueWithout': 'Continue without signing in',
  'signout.signedInAs': 'Signed in as {who}.',
  'signout.question': 'Are you sure you want to sign out?',
  'signout.button': 'Sign out',

  // Error page
  'error.Configuration.heading': 'Server error',
  'error.Configuration.message': 'There is a problem with the server configuration. Check the server logs for more information.',
  'error.AccessDenied.heading': 'Access denied',
  'error.AccessDenied.message': 'You do not have permission to sign in.',
  'error.InvalidRequest.heading': 'Request not valid',
  'error.InvalidRequest.message': 'This request could not be carried out. Go back and try again.',
  'error.Verification.heading': 'Unable to sign in',
  'error.Verification.message': 'The sign in link is no longer valid. It may have been used already or it may have expired.',
  'error.signIn.heading': 'Unable to sign in',
  'error.fallback.heading': 'Something went wrong',
  'error.fallback.message': 'An unexpected error occurred while signing in.',
  'error.code': 'Error code: {code}',
  'error.trace': 'Debug trace',

  // "Check your email" page
  'verify.title': 'Check your email',
  'verify.sentTo': 'A sign in link has been sent to {address}.',
  'verify.yourAddress': 'your email address',
  'verify.open': 'Open the link in that email to finish signing in. You can close this page.',
  'verify.noMail': 'No email after a few minutes? Check your spam folder, or',
  'verify.resend': 'Resend the link',
  'verify.change': 'Use a different address',
  'verify.back': 'Back to sign in',

  // Magic-link confirmation page
  'emailCode.message': 'We sent a sign-in code to {address}. Enter it here, in this browser.',
  'emailCode.wrong': 'That code did not match. {count} tries left.',
  'emailCode.wrongLast': 'That code did not match. 1 try left.',
  'emailCode.label': 'Code from the email',

  'confirm.title': 'Confirm sign in',
  'confirm.heading': 'Sign in as {email}?',
  'confirm.headingAnonymous': 'Continue signing in?',
  'confirm.note': 'Confirm to finish signing in. If you did not ask to sign in, you can close this page.',
  'confirm.unusable': 'This sign-in link cannot be used. Request a new one.',

  // Second factors: the check, enrolment, the factors page, backup codes
  'factor.check.title': 'Two-step verification',
  'factor.check.titleConfirm': 'Confirm it is you',
  'factor.check.message': 'Enter the 6-digit code from your authenticator app, or one of your backup codes.',
  'factor.check.wrongCode': 'That code did not match. Try again.',
  'factor.check.wrongPasskey': 'That passkey could not be verified. Try again, or enter a code.',
  'factor.enrol.wrongCode': 'That code did not match. Check the time on your phone and try the next code.',
  'factor.code': 'Code',
  'factor.verify': 'Verify',
  'factor.usePasskey': 'Use a passkey instead',
  'factor.enrol.title': 'Set up two-step verification',
  'factor.enrol.message': 'Scan the code with an authenticator app, or type this key: {key}. Then enter the 6-digit code it shows.',
  'factor.enrol.qrAlt': 'QR code for {account}',
  'factor.enrol.openApp': 'Open in an authenticator app',
  'factor.enrol.submit': 'Turn on',
  'factors.title': 'Two-step verification',
  'factors.app': 'Authenticator app',
  'factors.added': 'added {date}',
  'factors.remove': 'Remove',
  'factors.backupCodes': 'Backup codes',
  'factors.codesLeft': '{count} left',
  'factors.none': 'No second factor yet: a password alone signs you in.',
  'factors.addApp': 'Set up an authenticator app',
  'factors.addAnotherApp': 'Add another authenticator app',
  'factors.newCodes': 'New backup codes',
  'factors.makeCodes': 'Make backup codes',
  'codes.title': 'Your backup codes',
  'codes.note': 'Each code signs you in once when your authenticator app is not at hand. Keep them somewhere safe: they are not shown again, and any earlier codes no longer work.',
  'codes.done': 'Done',

  // The account page
  'account.title': 'Your account',
  'account.signedInAs': 'Signed in as {who}',
  'account.linked': 'Linked accounts',
  'account.isLinked': 'linked',
  'account.notLinked': 'not linked',
  'account.link': 'Link',
  'account.unlink': 'Unlink',
  'account.noProviders': 'No provider to link.',
  'account.passkeys': 'Passkeys',
  'account.passkeyCount': 'Passkeys: {count}',
  'account.factors': 'Two-step verification',
  'account.manageFactors': 'Manage second factors',
  'account.devices': 'Devices',
  'account.unknownDevice': 'Unknown device',
  'account.thisDevice': '{device} (this device)',
  'account.lastSeen': 'last seen {date}',
  'account.noDevices': 'Signed-in devices are listed with database sessions.',
  'account.error.OAuthAccountNotLinked': 'That account is already linked to another user.',
  'account.error.AccessDenied': 'That change was refused: an account must keep at least one way to sign in.',
  'account.error.AccountNotLinked': 'The link was started by another session.',
  'account.error.default': 'That did not work.',

  // The sign-in mail
  'mail.subject': 'Sign in to {host}',
  'mail.heading': 'Sign in to {host}',
  'mail.open': 'Open this link to sign in:',
  'mail.button': 'Sign in',
  'mail.expires': 'The link works once and expires {date}.',
  'mail.expiresCode': 'The code works once, only in the browser that asked for it, and expires {date}.',
  'mail.codeIntro': 'Or enter this code on the page where you asked for it:',
  'mail.codeIntroOnly': 'Enter this code on the page where you asked for it:',
  'mail.ignore': 'If you did not ask to sign in, you can ignore this e-mail.',
} as const;

/** The id of a built-in message. */
export type MessageId = keyof typeof en;

/** Every built-in message of one locale. */
export type Messages = Record<MessageId, string>;
