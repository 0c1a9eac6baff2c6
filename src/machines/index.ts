// The registry of built-in flow machines, by machine id: what the visualizer draws and the tests cover.
import type { AnyStateMachine } from 'xstate';
import { credentialsMachine } from './credentials.js';
import { emailMachine } from './email.js';
import { oauthMachine } from './oauth.js';
import { webauthnMachine } from './webauthn.js';

export const machines: Record<string, AnyStateMachine> = {
  credentials: credentialsMachine,
  oauth: oauthMachine,
  webauthn: webauthnMachine,
  email: emailMachine,
};
