// English as a translator, for what renders without a request (a page's default, the e-mail provider's mails).
// Its own module, so that only the code that renders text (pages, mails: loaded on first use) imports English.
import { en } from './en.js';
import { Translator } from './translator.js';

/** English, for pages rendered without a request (and the default everywhere). */
export const english = new Translator('en', [en]);
