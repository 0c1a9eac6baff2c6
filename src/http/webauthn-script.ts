// The passkey script of the built-in sign-in page, served as GET {basePath}/webauthn-script.js. Plain
// JavaScript for browsers with the WebAuthn JSON helpers (no bundler, no CDN, no dependency).
//
// It drives each `[data-webauthn]` section the page renders: the buttons fetch options (the flow cookie comes
// with them), run navigator.credentials.create()/get(), and post the credential back as a form, so the browser
// follows authchart's redirect like any other sign-in. A section whose input has `autocomplete="... webauthn"`
// also offers its passkeys in the browser's autofill (conditional mediation).

/** The script's source. Kept free of backticks and `${`: it lives in a template literal. */
export const webauthnScript = String.raw`// authchart passkeys: the ceremonies of the built-in sign-in page.
(function () {
  'use strict';

  var PKC = window.PublicKeyCredential;
  var supported = Boolean(PKC && PKC.parseCreationOptionsFromJSON && PKC.parseRequestOptionsFromJSON && navigator.credentials);
  // The pending autofill request, if any: it must be aborted before any other ceremony can start.
  var conditional = null;

  function status(section, text) {
    var box = section.querySelector('[data-webauthn-status]');
    if (!box) {
      box = document.createElement('p');
      box.setAttribute('data-webauthn-status', '');
      box.setAttribute('role', 'status');
      box.className = 'muted center';
      section.appendChild(box);
    }
    box.textContent = text;
  }

  // The page's words for each status, in its language (data-text-* on the section), English when absent.
  function say(section, key, english) {
    return section.getAttribute('data-text-' + key) || english;
  }

  function setBusy(section, busy) {
    Array.prototype.forEach.call(section.querySelectorAll('button[data-action]'), function (button) {
      button.disabled = busy;
    });
  }

  function emailInput(section) {
    return section.querySelector('input[name="email"]');
  }

  function optionsUrl(section, action, email) {
    var url = new URL(section.dataset.optionsUrl, window.location.href);
    if (action) url.searchParams.set('action', action);
    if (email) url.searchParams.set('email', email);
    return url;
  }

  // Asked with X-Auth-Return-Redirect, authchart answers a failure as {url} of its error page: go there.
  // A section with data-options-method="post" (the account page's "add a passkey") asks by a CSRF-checked POST.
  function fetchOptions(section, action, email, signal) {
    var byPost = section.dataset.optionsMethod === 'post';
    var init = {
      credentials: 'same-origin',
      headers: { accept: 'application/json', 'x-auth-return-redirect': '1' },
      signal: signal
    };
    if (byPost) {
      init.method = 'POST';
      init.body = new URLSearchParams({ csrfToken: section.dataset.csrfToken || '', callbackUrl: section.dataset.callbackUrlAfter || '' });
    }
    return fetch(byPost ? new URL(section.dataset.optionsUrl, window.location.href) : optionsUrl(section, action, email), init).then(function (res) {
      return res.json().then(function (body) {
        if (body && body.options && (body.action === 'register' || body.action === 'authenticate')) return body;
        if (body && typeof body.url === 'string') {
          window.location.assign(body.url);
          return null;
        }
        throw new Error((body && body.message) || 'The server sent no passkey options.');
      });
    });
  }

  function post(section, action, credential) {
    var form = document.createElement('form');
    form.method = 'post';
    form.action = section.dataset.callbackUrl;
    form.hidden = true;
    var fields = {
      action: action,
      data: JSON.stringify(credential.toJSON()),
      csrfToken: section.dataset.csrfToken || '',
      callbackUrl: section.dataset.callbackUrlAfter || ''
    };
    Object.keys(fields).forEach(function (name) {
      var input = document.createElement('input');
      input.type = 'hidden';
      input.name = name;
      input.value = fields[name];
      form.appendChild(input);
    });
    document.body.appendChild(form);
    form.submit();
  }

  function ceremony(body, mediation, signal) {
    if (body.action === 'register') {
      return navigator.credentials.create({ publicKey: PKC.parseCreationOptionsFromJSON(body.options) });
    }
    var request = { publicKey: PKC.parseRequestOptionsFromJSON(body.options) };
    if (mediation) {
      request.mediation = mediation;
      request.signal = signal;
    }
    return navigator.credentials.get(request);
  }

  function explain(section, error) {
    switch (error && error.name) {
      case 'NotAllowedError':
        return say(section, 'cancelled', 'The passkey request was cancelled or timed out.');
      case 'InvalidStateError':
        return say(section, 'exists', 'This device already holds a passkey for this account.');
      case 'SecurityError':
        return say(section, 'insecure', 'Passkeys cannot be used on this address.');
      default:
        return say(section, 'failed', 'The passkey could not be used:') + ' ' + ((error && error.message) || String(error));
    }
  }

  // Each options request replaces the flow cookie: stopping waits until the autofill's own request is over,
  // so that its answer cannot overwrite the cookie of the ceremony that follows.
  function stopConditional() {
    var pending = conditional;
    if (!pending) return Promise.resolve();
    conditional = null;
    clearTimeout(pending.timer);
    pending.controller.abort();
    return pending.fetched;
  }

  function startConditional(section) {
    if (!PKC.isConditionalMediationAvailable || conditional) return;
    var pending = { controller: new AbortController(), timer: 0, fetched: null };
    conditional = pending;
    var options = PKC.isConditionalMediationAvailable().then(function (available) {
      if (!available || conditional !== pending) return null;
      return fetchOptions(section, 'authenticate', '', pending.controller.signal);
    });
    pending.fetched = options.then(
      function () {},
      function () {}
    );
    options
      .then(function (body) {
        if (!body || conditional !== pending) return null;
        // The challenge expires with the options: fetch fresh ones shortly before it does.
        var timeout = (body.options && body.options.timeout) || 300000;
        pending.timer = setTimeout(function () {
          if (conditional !== pending) return;
          stopConditional().then(function () {
            startConditional(section);
          });
        }, Math.max(10000, timeout - 10000));
        return ceremony(body, 'conditional', pending.controller.signal).then(function (credential) {
          if (!credential || conditional !== pending) return;
          clearTimeout(pending.timer);
          conditional = null;
          post(section, body.action, credential);
        });
      })
      .catch(function (error) {
        if (conditional === pending) conditional = null;
        if (pending.controller.signal.aborted || (error && error.name === 'AbortError')) return;
        status(section, explain(section, error));
      });
  }

  function run(section, action, conditionalSection) {
    var input = emailInput(section);
    var email = input ? input.value.trim() : '';
    // A signed-in page (data-signed-in) adds the passkey to the account signed in: no address needed.
    if (action === 'register' && !email && !('signedIn' in section.dataset)) {
      status(section, say(section, 'need-email', 'Enter your email address to register a passkey.'));
      if (input) input.focus();
      return;
    }
    setBusy(section, true);
    status(section, say(section, 'dialog', 'Continue in your browser\u2019s passkey dialog\u2026'));
    stopConditional()
      .then(function () {
        // The address only labels a new passkey; signing in uses the passkeys the device offers.
        return fetchOptions(section, action, action === 'register' ? email : '');
      })
      .then(function (body) {
        if (!body) return;
        return ceremony(body).then(function (credential) {
          if (credential) post(section, body.action, credential);
        });
      })
      .catch(function (error) {
        setBusy(section, false);
        status(section, explain(section, error));
        if (conditionalSection) startConditional(conditionalSection);
      });
  }

  function init() {
    var sections = Array.prototype.slice.call(document.querySelectorAll('[data-webauthn]'));
    var autofill = null;
    sections.forEach(function (section) {
      if (!autofill && section.querySelector('input[autocomplete~="webauthn"]')) autofill = section;
    });
    sections.forEach(function (section) {
      var buttons = section.querySelectorAll('button[data-action]');
      if (!supported) {
        Array.prototype.forEach.call(buttons, function (button) {
          button.disabled = true;
        });
        status(section, say(section, 'unsupported', 'This browser does not support passkeys.'));
        return;
      }
      Array.prototype.forEach.call(buttons, function (button) {
        button.addEventListener('click', function () {
          run(section, button.getAttribute('data-action'), autofill);
        });
      });
    });
    if (supported && autofill) startConditional(autofill);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
`;
