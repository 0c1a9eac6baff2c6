// `authchart/providers/credentials`: the credentials provider alone (the root entry exports it too).
export { Credentials, type CredentialsConfig, type CredentialsUserConfig } from '../credentials.js';
