// Runs the app once and prints the outcome as JSON (the consumer test reads it).
import { handlers, signInAndReadSession, touched } from './app.js';

const result = await signInAndReadSession(handlers.GET, 'ada');
console.log(JSON.stringify({ ...result, touched }));
