// `authchart/providers/password`: the Password provider and its helpers alone (the root entry exports them too).
export * from '../password/index.js';
