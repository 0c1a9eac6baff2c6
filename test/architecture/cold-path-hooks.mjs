// Module hooks for cold-path-probe.ts: every module the process loads is appended, as its URL, to the file named
// by COLD_PATH_LOG. The hooks run on a thread of their own, so a file is how they report back.
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  if (process.env.COLD_PATH_LOG) appendFileSync(process.env.COLD_PATH_LOG, `${url}\n`);
  return nextLoad(url, context);
}
