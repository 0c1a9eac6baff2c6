// `node --import` this file to record the modules a process loads (see cold-path-hooks.mjs).
import { register } from 'node:module';

register('./cold-path-hooks.mjs', import.meta.url);
